/*
Copyright 2026 The cronlab Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package helmchart checks stage 8: what the chart renders for a set of
// values. It runs `helm template`, the same rendering `helm install` does,
// and looks at the manager's Deployment, so it needs no cluster.
package helmchart

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/test/say"
)

const chart = "../../charts/cronlab"

// helm finds the helm binary that `make helm` installs (or $HELM).
func helm(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	h, err := filepath.Abs("../../bin/helm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h); err != nil {
		t.Fatal(say.Both("no helm at %s: run `make helm` first",
			"%s 处没有 helm：请先运行 `make helm`", h))
	}
	return h
}

// render runs helm template with --set values and returns the manager's
// Deployment, or helm's error output.
func render(t *testing.T, set ...string) (*appsv1.Deployment, string) {
	t.Helper()
	args := []string{"template", "lab", chart, "--namespace", "cronlab-system", "--show-only", "templates/deployment.yaml"}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(helm(t), args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, stderr.String()
	}
	// Decoded as the API server decodes what kubectl or helm send: YAML to
	// JSON without knowing the types, then JSON into the Deployment. So an
	// unquoted `value: false` stays a boolean, which no env value accepts.
	js, err := yaml.YAMLToJSON(out)
	if err != nil {
		t.Fatal(say.Both("the chart renders no YAML: %v\n%s",
			"chart 渲染出的内容不是 YAML：%v\n%s", err, out))
	}
	var d appsv1.Deployment
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(say.Both("the API server would refuse the Deployment the chart renders: %v\n%s",
			"chart 渲染出的 Deployment 会被 API 服务器拒绝：%v\n%s", err, out))
	}
	if d.Kind != "Deployment" {
		t.Fatal(say.Both("templates/deployment.yaml renders no Deployment:\n%s",
			"templates/deployment.yaml 没有渲染出 Deployment：\n%s", out))
	}
	return &d, ""
}

func manager(t *testing.T, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			return c
		}
	}
	t.Fatal(say.Both("the Deployment has no container named manager",
		"Deployment 中没有名为 manager 的容器"))
	return corev1.Container{}
}

func env(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// flagValue returns the value of --name=value among args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestTheValuesBecomeTheManagersFlags(t *testing.T) {
	for _, tc := range []struct {
		name       string
		set        []string
		want, not  []string          // flags (with their values) present and absent
		wantValues map[string]string // --flag: value
	}{{
		name:       "defaults: leader election, metrics over HTTPS on 8443, no webhooks",
		want:       []string{"--leader-elect", "--metrics-secure"},
		not:        []string{"--webhook-cert-path"},
		wantValues: map[string]string{"--metrics-bind-address": ":8443", "--health-probe-bind-address": ":8081"},
	}, {
		name: "leader election off",
		set:  []string{"leaderElection=false"},
		not:  []string{"--leader-elect"},
	}, {
		name:       "metrics off: the flag says 0, which turns the endpoint off",
		set:        []string{"metrics.enabled=false"},
		not:        []string{"--metrics-secure"},
		wantValues: map[string]string{"--metrics-bind-address": "0"},
	}, {
		name:       "metrics on another port",
		set:        []string{"metrics.port=9443"},
		wantValues: map[string]string{"--metrics-bind-address": ":9443"},
	}, {
		name: "two replicas with leader election",
		set:  []string{"replicas=2"},
		want: []string{"--leader-elect"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d, errOut := render(t, tc.set...)
			if d == nil {
				t.Fatal(say.Both("helm template failed: %s",
					"helm template 失败：%s", errOut))
			}
			args := manager(t, d).Args
			for _, f := range tc.want {
				if !slices.Contains(args, f) {
					t.Error(say.Both("args %q lack %s",
						"args %q 中缺少 %s", args, f))
				}
			}
			for _, f := range tc.not {
				for _, a := range args {
					if a == f || strings.HasPrefix(a, f+"=") {
						t.Error(say.Both("args %q must not have %s",
							"args %q 中不能有 %s", args, f))
					}
				}
			}
			for f, want := range tc.wantValues {
				if got, ok := flagValue(args, f); !ok || got != want {
					t.Error(say.Both("args %q: want %s=%s",
						"args %q：应有 %s=%s", args, f, want))
				}
			}
			if v, _ := env(manager(t, d), "ENABLE_WEBHOOKS"); v != "false" {
				t.Error(say.Both("without webhooks, ENABLE_WEBHOOKS must be \"false\" (the manager then needs no certificate); got %q",
					"不启用 Webhook 时，ENABLE_WEBHOOKS 必须为 \"false\"（这样管理器就不需要证书）；得到的是 %q", v))
			}
			if len(d.Spec.Template.Spec.Volumes) != 0 {
				t.Error(say.Both("without webhooks there is no certificate to mount; got volumes %v",
					"不启用 Webhook 时没有证书需要挂载；得到的卷为 %v", d.Spec.Template.Spec.Volumes))
			}
		})
	}
}

func TestWebhooksMountTheCertificateWhereTheFlagSays(t *testing.T) {
	d, errOut := render(t, "webhooks.enabled=true", "webhooks.caBundle=Zm9v", "webhooks.certSecret=my-cert")
	if d == nil {
		t.Fatal(say.Both("helm template failed: %s",
			"helm template 失败：%s", errOut))
	}
	c := manager(t, d)
	if v, _ := env(c, "ENABLE_WEBHOOKS"); v != "true" {
		t.Error(say.Both("ENABLE_WEBHOOKS = %q, want \"true\"",
			"ENABLE_WEBHOOKS = %q，应为 \"true\"", v))
	}
	path, ok := flagValue(c.Args, "--webhook-cert-path")
	if !ok {
		t.Fatal(say.Both("args %q lack --webhook-cert-path: the manager would not find its certificate",
			"args %q 中缺少 --webhook-cert-path：管理器会找不到它的证书", c.Args))
	}
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			volume = m.Name
			if !m.ReadOnly {
				t.Error(say.Both("mount %s must be read-only",
					"挂载 %s 必须是只读的", m.Name))
			}
		}
	}
	if volume == "" {
		t.Fatal(say.Both("nothing is mounted at %s (mounts: %v)",
			"%s 处没有挂载任何东西（现有的挂载：%v）", path, c.VolumeMounts))
	}
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == volume {
			if v.Secret == nil || v.Secret.SecretName != "my-cert" {
				t.Error(say.Both("volume %s must be the Secret named in webhooks.certSecret (my-cert); got %+v",
					"卷 %s 必须是 webhooks.certSecret 指定的 Secret（my-cert）；得到的是 %+v", volume, v.VolumeSource))
			}
			return
		}
	}
	t.Error(say.Both("the mount %s names no volume of the pod",
		"挂载 %s 引用的卷在 Pod 中不存在", volume))
}

func TestTwoReplicasWithoutLeaderElectionAreRefused(t *testing.T) {
	d, errOut := render(t, "replicas=2", "leaderElection=false")
	if d != nil {
		t.Fatal(say.Both("the chart rendered two replicas without leader election: both would start every run",
			"chart 渲染出了两个副本，却没有开启领导者选举：两个副本都会启动每一次运行"))
	}
	if !strings.Contains(errOut, "leaderElection") {
		t.Error(say.Both("the error must say how to fix it (turn leaderElection on); got: %s",
			"错误消息必须说明如何修复（开启 leaderElection）；得到的是：%s", errOut))
	}
}
