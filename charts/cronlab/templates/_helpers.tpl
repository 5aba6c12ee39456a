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
