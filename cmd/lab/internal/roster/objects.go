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

package roster

// What each attendee gets, as apply configurations: applied with
// server-side apply under one field manager, so that running setup again
// changes nothing that is already as it should be, and repairs what is not.

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
)

const (
	// FieldManager owns every field setup writes.
	FieldManager = "cronlab-lab-class"
	// ClassLabel marks what setup made, with the class's name: teardown
	// deletes what carries it, and nothing else.
	ClassLabel = "class.cronlab.dev/class"
	// AttendeeLabel names the attendee a namespace is for.
	AttendeeLabel = "class.cronlab.dev/attendee"
	// Account is the ServiceAccount of each attendee, in their namespace.
	Account = "attendee"
	// RoleName is the Role that says what the lab needs there.
	RoleName = "cronlab-attendee"
)

// Namespace is the attendee's namespace: the class's name, then theirs.
func Namespace(class, name string) string { return class + "-" + name }

func labels(class, name string) map[string]string {
	return map[string]string{ClassLabel: class, AttendeeLabel: name, "app.kubernetes.io/managed-by": FieldManager}
}

func namespace(class, name string) *corev1ac.NamespaceApplyConfiguration {
	return corev1ac.Namespace(Namespace(class, name)).WithLabels(labels(class, name))
}

func serviceAccount(class, name string) *corev1ac.ServiceAccountApplyConfiguration {
	return corev1ac.ServiceAccount(Account, Namespace(class, name)).WithLabels(labels(class, name))
}

// role is what the lab needs in the attendee's namespace, and no more:
// what their manager does (make run with their kubeconfig: the CronJobs
// and their status, the Jobs, Events, its leader election Lease), and what
// they do with kubectl (create CronJobs, read Jobs, Pods and their logs).
// Nothing outside the namespace: not the CRD, not another namespace.
func role(class, name string) *rbacv1ac.RoleApplyConfiguration {
	rule := func(group string, resources []string, verbs ...string) *rbacv1ac.PolicyRuleApplyConfiguration {
		return rbacv1ac.PolicyRule().WithAPIGroups(group).WithResources(resources...).WithVerbs(verbs...)
	}
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	return rbacv1ac.Role(RoleName, Namespace(class, name)).WithLabels(labels(class, name)).WithRules(
		rule("batch.cronlab.dev", []string{"cronjobs"}, all...),
		rule("batch.cronlab.dev", []string{"cronjobs/status"}, "get", "update", "patch"),
		rule("batch", []string{"jobs"}, all...),
		rule("batch", []string{"jobs/status"}, "get"),
		rule("", []string{"pods", "pods/log"}, "get", "list", "watch"),
		rule("", []string{"events"}, "get", "list", "watch", "create", "patch"),
		rule("events.k8s.io", []string{"events"}, "get", "list", "watch", "create", "patch"),
		rule("coordination.k8s.io", []string{"leases"}, "get", "list", "watch", "create", "update", "patch", "delete"),
	)
}

func roleBinding(class, name string) *rbacv1ac.RoleBindingApplyConfiguration {
	ns := Namespace(class, name)
	return rbacv1ac.RoleBinding(RoleName, ns).WithLabels(labels(class, name)).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("Role").WithName(RoleName)).
		WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName(Account).WithNamespace(ns))
}
