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

package apiserver

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"cronlab.dev/cronlab/cmd/lab/internal/base"
)

// systemNamespaces are the API server's own; every other namespace is a
// test's.
var systemNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": true}

var cronJobs = schema.GroupVersionResource{Group: "batch.cronlab.dev", Version: "v1", Resource: "cronjobs"}

// clean deletes what earlier checks left: every CronJob and Job, and every
// namespace of a test. envtest runs no namespace controller, so a deleted
// namespace would stay Terminating with its objects; clean empties it of
// what controllers watch and then finalizes it itself.
func (s Server) clean() error {
	defer base.Traced("clean the shared server")()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.path("kubeconfig"))
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = -1, -1
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	namespaces, err := kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	// One goroutine a namespace: each takes a few round trips, and a check
	// leaves dozens of namespaces.
	errs := make([]error, len(namespaces.Items))
	var wg sync.WaitGroup
	for i, ns := range namespaces.Items {
		wg.Go(func() { errs[i] = cleanNamespace(ctx, kube, dyn, ns.Name) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func cleanNamespace(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, ns string) error {
	all := metav1.ListOptions{}
	err := dyn.Resource(cronJobs).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, all)
	if err != nil && !apierrors.IsNotFound(err) { // NotFound: the CRD is not installed yet
		return err
	}
	background := metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
	if err := kube.BatchV1().Jobs(ns).DeleteCollection(ctx, background, all); err != nil {
		return err
	}
	if err := kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, all); err != nil {
		return err
	}
	if systemNamespaces[ns] {
		return nil
	}
	return deleteNamespace(ctx, kube, ns)
}

// deleteNamespace deletes a namespace and removes its finalizer, as the
// namespace controller would once the namespace is empty.
func deleteNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	err := kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ns, err := kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		ns.Spec.Finalizers = nil
		_, err = kube.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}
