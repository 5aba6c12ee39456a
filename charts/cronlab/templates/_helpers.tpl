{{/* Names: every object is called <release>-<chart>-<part>, shortened to fit. */}}
{{- define "cronlab.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cronlab.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{ include "cronlab.selectorLabels" . }}
{{- end -}}

{{- define "cronlab.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
control-plane: controller-manager
{{- end -}}

{{- define "cronlab.serviceAccountName" -}}
{{ include "cronlab.fullname" . }}-controller-manager
{{- end -}}

{{- define "cronlab.webhookService" -}}
{{ include "cronlab.fullname" . }}-webhook-service
{{- end -}}

{{- define "cronlab.certificate" -}}
{{ include "cronlab.fullname" . }}-serving-cert
{{- end -}}

{{- /*
A CRD is cluster-wide: one release installs it, and Helm takes over only
objects that carry its ownership labels. Refuse, with the way out, a CRD that
exists and belongs to no release of this name (make install, make deploy, or
the chart in another namespace). lookup finds nothing under helm template.
*/}}
{{- define "cronlab.crdOwner" -}}
{{- $crd := lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" .name -}}
{{- if $crd -}}
{{- $a := $crd.metadata.annotations | default dict -}}
{{- if or (ne (get $a "meta.helm.sh/release-name") .ctx.Release.Name) (ne (get $a "meta.helm.sh/release-namespace") .ctx.Release.Namespace) -}}
{{- $owner := get $a "meta.helm.sh/release-name" -}}
{{- $by := "no Helm release owns it (make install or make deploy put it there)" -}}
{{- if $owner -}}
{{- $by = printf "it belongs to release %s in namespace %s" $owner (get $a "meta.helm.sh/release-namespace") -}}
{{- end -}}
{{- fail (printf "CRD %s already exists and %s. Either use it as it is: --set crd.enable=false; or let this release take it over: see \"A CRD that already exists\" in docs/packaging.md" .name $by) -}}
{{- end -}}
{{- end -}}
{{- end -}}
