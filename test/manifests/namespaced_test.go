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

package manifests

// The manager scoped to one namespace (docs/class.md): config/namespaced
// and the chart's `namespaced` value grant the manager's rules by a Role
// in its own namespace, and tell it that namespace (WATCH_NAMESPACE).

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestNamespacedConfigGrantsTheManagerARoleInItsNamespace(t *testing.T) {
	checkScoped(t, "config/namespaced", build(t, "namespaced"), "cronlab-", "cronlab-system")
	checkUnscoped(t, "config/default", build(t, "default"), "cronlab-")
}

// config/namespaced says that an overlay of it may move it to another
// namespace, with a prefix of its own: the binding must follow.
func TestAnOverlayOfNamespacedConfigMovesTheRoleAndItsBinding(t *testing.T) {
	dir := t.TempDir()
	configDir, err := filepath.Abs(filepath.Join("..", "..", "config"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := filepath.Rel(dir, filepath.Join(configDir, "namespaced"))
	if err != nil {
		t.Fatal(err)
	}
	overlay := "namespace: alice\nnamePrefix: alice-\nresources:\n- " + base + "\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(configDir, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkScoped(t, "an overlay of config/namespaced", build(t, rel), "alice-cronlab-", "alice")
}

func TestTheChartsNamespacedValueGrantsARoleInTheReleaseNamespace(t *testing.T) {
	checkScoped(t, "the chart with namespaced=true", render(t, "namespaced=true"), "lab-cronlab-", "lab-system")
	checkUnscoped(t, "the chart by default", render(t), "lab-cronlab-")
}

// checkScoped: the manager's rules, exactly those generated from the
// markers, are a Role bound to its ServiceAccount in ns, nothing binds them
// cluster-wide, and the manager watches the namespace of its pod.
func checkScoped(t *testing.T, source string, objs []object, prefix, ns string) {
	t.Helper()
	role := named(t, source, objs, prefix+"manager-role")
	if role.Kind != "Role" || role.Metadata.Namespace != ns {
		t.Errorf("%s: the manager's rules are a %s in namespace %q, want a Role in %q", source, role.Kind, role.Metadata.Namespace, ns)
	}
	if want := generatedRules(t); !reflect.DeepEqual(role.Rules, want) {
		t.Errorf("%s: the Role's rules\n%v\nare not those of config/rbac/role.yaml\n%v", source, role.Rules, want)
	}
	binding := named(t, source, objs, prefix+"manager-rolebinding")
	if binding.Kind != "RoleBinding" || binding.Metadata.Namespace != ns {
		t.Errorf("%s: the manager's binding is a %s in namespace %q, want a RoleBinding in %q", source, binding.Kind, binding.Metadata.Namespace, ns)
	}
	if binding.RoleRef["kind"] != "Role" || binding.RoleRef["name"] != role.Metadata.Name {
		t.Errorf("%s: the RoleBinding refers to %v, want the Role %s", source, binding.RoleRef, role.Metadata.Name)
	}
	sa := map[string]any{"kind": "ServiceAccount", "name": prefix + "controller-manager", "namespace": ns}
	if !reflect.DeepEqual(binding.Subjects, []any{sa}) {
		t.Errorf("%s: the RoleBinding binds %v, want the manager's ServiceAccount %v", source, binding.Subjects, sa)
	}
	for _, crb := range find(objs, "ClusterRoleBinding") {
		if crb.RoleRef["name"] == role.Metadata.Name {
			t.Errorf("%s: ClusterRoleBinding %s still grants the manager's rules in every namespace", source, crb.Metadata.Name)
		}
	}
	// TokenReviews and SubjectAccessReviews are cluster-scoped: this one stays.
	if r := named(t, source, objs, prefix+"metrics-auth-role"); r.Kind != "ClusterRole" {
		t.Errorf("%s: metrics-auth-role is a %s, want a ClusterRole", source, r.Kind)
	}
	deployment := theDeployment(t, source, objs)
	if deployment.Metadata.Namespace != ns {
		t.Errorf("%s: the Deployment is in %q, not where its Role is (%q)", source, deployment.Metadata.Namespace, ns)
	}
	if from := watchNamespaceFrom(deployment); from != "metadata.namespace" {
		t.Errorf("%s: WATCH_NAMESPACE comes from %q, want the pod's metadata.namespace (downward API)", source, from)
	}
}

// checkUnscoped: without the switch, everything is as before: one
// ClusterRole bound cluster-wide, and no namespace given to the manager.
func checkUnscoped(t *testing.T, source string, objs []object, prefix string) {
	t.Helper()
	if r := named(t, source, objs, prefix+"manager-role"); r.Kind != "ClusterRole" {
		t.Errorf("%s: the manager's rules are a %s, want a ClusterRole", source, r.Kind)
	}
	if b := named(t, source, objs, prefix+"manager-rolebinding"); b.Kind != "ClusterRoleBinding" || b.RoleRef["kind"] != "ClusterRole" {
		t.Errorf("%s: the manager's binding is a %s of a %v, want a ClusterRoleBinding of a ClusterRole", source, b.Kind, b.RoleRef["kind"])
	}
	if from := watchNamespaceFrom(theDeployment(t, source, objs)); from != "" {
		t.Errorf("%s: the manager gets WATCH_NAMESPACE (from %s), and would watch one namespace only", source, from)
	}
}

// named finds the one object of that name.
func named(t *testing.T, source string, objs []object, name string) object {
	t.Helper()
	var found []object
	for _, o := range objs {
		if o.Metadata.Name == name {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d objects named %s, want 1", source, len(found), name)
	}
	return found[0]
}

func theDeployment(t *testing.T, source string, objs []object) object {
	t.Helper()
	found := find(objs, "Deployment")
	if len(found) != 1 {
		t.Fatalf("%s: %d Deployments, want the manager's", source, len(found))
	}
	return found[0]
}

// watchNamespaceFrom is the field that the manager container's
// WATCH_NAMESPACE is taken from, or "" when it has none.
func watchNamespaceFrom(deployment object) string {
	containers, _ := get(deployment.Spec, "template.spec.containers").([]any)
	for _, c := range containers {
		if get(c, "name") != "manager" {
			continue
		}
		env, _ := get(c, "env").([]any)
		for _, e := range env {
			if get(e, "name") == "WATCH_NAMESPACE" {
				from, _ := get(e, "valueFrom.fieldRef.fieldPath").(string)
				return from
			}
		}
	}
	return ""
}

// generatedRules are the rules controller-gen wrote from the markers.
func generatedRules(t *testing.T) []any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role object
	if err := yaml.Unmarshal(raw, &role); err != nil {
		t.Fatal(err)
	}
	return role.Rules
}
