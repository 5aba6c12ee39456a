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

// Command migrate-storage (make migrate-storage) rewrites every object of a
// CRD in the CRD's storage version, then records that no other version is
// stored. It is the step between "the storage version moved" and "the old
// version can go" (docs/answers/api-evolution.md):
//
//  1. an API server stores each object in the version that was the storage
//     version when the object was last written, and keeps doing so: moving
//     the storage version rewrites nothing. The CRD's status.storedVersions
//     lists every version that may still be in etcd;
//  2. a write of an object, even one that changes nothing, stores it anew,
//     in the current storage version. This tool writes each object once;
//  3. then it sets status.storedVersions to the storage version alone, and
//     from then on the API server lets the old version be removed from the
//     CRD. Before, it refuses: objects in etcd would have no version to be
//     read in.
//
// It works on any CRD through the dynamic client. The API server's own
// StorageVersionMigration API does the same in clusters that enable it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	crd := flag.String("crd", "cronjobs.batch.cronlab.dev", "the CustomResourceDefinition whose objects to rewrite")
	flag.Parse()
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate-storage: no cluster:", err)
		os.Exit(1)
	}
	if err := migrate(context.Background(), cfg, *crd, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "migrate-storage:", err)
		os.Exit(1)
	}
}

// migrate rewrites every object of the CRD named crdName in its storage
// version, and trims its status.storedVersions to that version.
func migrate(ctx context.Context, cfg *rest.Config, crdName string, out io.Writer) error {
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crdName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("CRD %s: %w (make install)", crdName, err)
	}
	storage := storageVersion(crd)
	if storage == "" {
		return fmt.Errorf("CRD %s has no storage version", crdName)
	}
	fmt.Fprintf(out, "%s: storage version %s; versions that may be in etcd: %v\n", crdName, storage, crd.Status.StoredVersions)
	if slices.Equal(crd.Status.StoredVersions, []string{storage}) {
		fmt.Fprintf(out, "every object is stored as %s already: nothing to rewrite\n", storage)
		return nil
	}

	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	objects := dyn.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: storage, Resource: crd.Spec.Names.Plural})
	rewritten, gone := 0, 0
	opts := metav1.ListOptions{Limit: 500}
	for {
		page, err := objects.List(ctx, opts)
		if err != nil {
			return err
		}
		for _, item := range page.Items {
			// An unchanged object, written back: the API server stores it
			// in the storage version. A conflict means someone else wrote
			// it meanwhile, which stored it too; the retry costs nothing.
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				fresh, err := objects.Namespace(item.GetNamespace()).Get(ctx, item.GetName(), metav1.GetOptions{})
				if err != nil {
					return err
				}
				_, err = objects.Namespace(item.GetNamespace()).Update(ctx, fresh, metav1.UpdateOptions{})
				return err
			})
			switch {
			case apierrors.IsNotFound(err):
				gone++
			case err != nil:
				return fmt.Errorf("rewriting %s/%s: %w (nothing was lost: run it again)", item.GetNamespace(), item.GetName(), err)
			default:
				rewritten++
			}
			if (rewritten+gone)%100 == 0 {
				fmt.Fprintf(out, "  %d rewritten\n", rewritten)
			}
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			break
		}
	}
	fmt.Fprintf(out, "rewrote %d objects as %s (%d deleted meanwhile)\n", rewritten, storage, gone)

	// Only now may the list shrink: every object that existed when the
	// rewrite began is stored anew, and every later write used the storage
	// version already.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if storageVersion(crd) != storage {
			return errors.New("the storage version changed while the objects were rewritten: run it again")
		}
		crd.Status.StoredVersions = []string{storage}
		_, err = crds.ApiextensionsV1().CustomResourceDefinitions().UpdateStatus(ctx, crd, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the stored versions: %w", err)
	}
	fmt.Fprintf(out, "status.storedVersions is [%s]: the other versions may now stop being served, then be removed from the CRD\n", storage)
	return nil
}

func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}
