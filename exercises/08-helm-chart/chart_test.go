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
		t.Fatalf("no helm at %s: run `make helm` first", h)
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
		t.Fatalf("the chart renders no YAML: %v\n%s", err, out)
	}
	var d appsv1.Deployment
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("the API server would refuse the Deployment the chart renders: %v\n%s", err, out)
	}
	if d.Kind != "Deployment" {
		t.Fatalf("templates/deployment.yaml renders no Deployment:\n%s", out)
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
	t.Fatal("the Deployment has no container named manager")
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
				t.Fatalf("helm template failed: %s", errOut)
			}
			args := manager(t, d).Args
			for _, f := range tc.want {
				if !slices.Contains(args, f) {
					t.Errorf("args %q lack %s", args, f)
				}
			}
			for _, f := range tc.not {
				for _, a := range args {
					if a == f || strings.HasPrefix(a, f+"=") {
						t.Errorf("args %q must not have %s", args, f)
					}
				}
			}
			for f, want := range tc.wantValues {
				if got, ok := flagValue(args, f); !ok || got != want {
					t.Errorf("args %q: want %s=%s", args, f, want)
				}
			}
			if v, _ := env(manager(t, d), "ENABLE_WEBHOOKS"); v != "false" {
				t.Errorf("without webhooks, ENABLE_WEBHOOKS must be \"false\" (the manager then needs no certificate); got %q", v)
			}
			if len(d.Spec.Template.Spec.Volumes) != 0 {
				t.Errorf("without webhooks there is no certificate to mount; got volumes %v", d.Spec.Template.Spec.Volumes)
			}
		})
	}
}

func TestWebhooksMountTheCertificateWhereTheFlagSays(t *testing.T) {
	d, errOut := render(t, "webhooks.enabled=true", "webhooks.caBundle=Zm9v", "webhooks.certSecret=my-cert")
	if d == nil {
		t.Fatalf("helm template failed: %s", errOut)
	}
	c := manager(t, d)
	if v, _ := env(c, "ENABLE_WEBHOOKS"); v != "true" {
		t.Errorf("ENABLE_WEBHOOKS = %q, want \"true\"", v)
	}
	path, ok := flagValue(c.Args, "--webhook-cert-path")
	if !ok {
		t.Fatalf("args %q lack --webhook-cert-path: the manager would not find its certificate", c.Args)
	}
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			volume = m.Name
			if !m.ReadOnly {
				t.Errorf("mount %s must be read-only", m.Name)
			}
		}
	}
	if volume == "" {
		t.Fatalf("nothing is mounted at %s (mounts: %v)", path, c.VolumeMounts)
	}
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == volume {
			if v.Secret == nil || v.Secret.SecretName != "my-cert" {
				t.Errorf("volume %s must be the Secret named in webhooks.certSecret (my-cert); got %+v", volume, v.VolumeSource)
			}
			return
		}
	}
	t.Errorf("the mount %s names no volume of the pod", volume)
}

func TestTwoReplicasWithoutLeaderElectionAreRefused(t *testing.T) {
	d, errOut := render(t, "replicas=2", "leaderElection=false")
	if d != nil {
		t.Fatal("the chart rendered two replicas without leader election: both would start every run")
	}
	if !strings.Contains(errOut, "leaderElection") {
		t.Errorf("the error must say how to fix it (turn leaderElection on); got: %s", errOut)
	}
}
