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

// Command watch-events shows what an informer sees (stage 03 of the lab):
// it lists one resource, then watches from the list's resourceVersion and
// prints every event with the resourceVersion it carries.
//
//	go run ./cmd/watch-events --resource cronjobs.v1.batch.cronlab.dev
//	go run ./cmd/watch-events --resource jobs.v1.batch --namespace default
//
// A watch does not last forever: the API server closes it after a while,
// and a client reconnects. run shows both ways back: resume the watch from
// the last resourceVersion seen (nothing is missed, nothing repeated), or,
// when the API server no longer has that version (410 Gone), list again.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	resource := flag.String("resource", "cronjobs.v1.batch.cronlab.dev", "resource.version.group to watch, e.g. jobs.v1.batch")
	namespace := flag.String("namespace", "", "namespace to watch (default: all)")
	flag.Parse()

	gvr, _ := schema.ParseResourceArg(*resource)
	if gvr == nil {
		fmt.Fprintf(os.Stderr, "--resource %q must be resource.version.group, such as jobs.v1.batch\n", *resource)
		os.Exit(2)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "no cluster:", err, "(start one with `make cluster`)")
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, dynamic.NewForConfigOrDie(cfg), *gvr, *namespace, os.Stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run lists and watches until ctx ends, reconnecting as an informer's
// reflector does.
func run(ctx context.Context, c dynamic.Interface, gvr schema.GroupVersionResource, ns string, out io.Writer) error {
	from := "" // "" means: start with a list
	for ctx.Err() == nil {
		rv, err := listThenWatch(ctx, c, gvr, ns, from, out)
		switch {
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			fmt.Fprintf(out, "RECONNECT resourceVersion %s is too old (410 Gone): list again\n", rv)
			from = ""
		case err != nil && ctx.Err() == nil:
			return err
		default:
			fmt.Fprintf(out, "RECONNECT the watch closed: resume from resourceVersion %s\n", rv)
			from = rv
		}
	}
	return nil
}

// lab:begin list-watch

// listThenWatch lists the resource (unless from names a resourceVersion to
// resume at) and prints each object with its resourceVersion, then watches
// from the list's resourceVersion and prints each event: ADDED, MODIFIED,
// DELETED, and BOOKMARK (the API server saying "you are up to date to here").
// Listing and then watching from the list's version is what makes an
// informer's cache complete: the list is a snapshot, the watch every change
// after it, none twice. It returns the last resourceVersion it saw.
func listThenWatch(ctx context.Context, c dynamic.Interface, gvr schema.GroupVersionResource, ns, from string, out io.Writer) (string, error) {
	client := c.Resource(gvr).Namespace(ns)
	last := from
	if from == "" {
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil {
			return "", err
		}
		last = list.GetResourceVersion()
		fmt.Fprintf(out, "LIST resourceVersion=%s items=%d\n", last, len(list.Items))
		for _, item := range list.Items {
			fmt.Fprintf(out, "  %s rv=%s\n", item.GetName(), item.GetResourceVersion())
		}
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: last, AllowWatchBookmarks: true})
	if err != nil {
		return last, err
	}
	defer w.Stop()
	for event := range w.ResultChan() {
		if event.Type == watch.Error {
			return last, apierrors.FromObject(event.Object)
		}
		obj, ok := event.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		last = obj.GetResourceVersion()
		if event.Type == watch.Bookmark {
			fmt.Fprintf(out, "BOOKMARK rv=%s\n", last)
			continue
		}
		fmt.Fprintf(out, "%s %s rv=%s\n", event.Type, obj.GetName(), last)
	}
	return last, nil
}

// lab:end
