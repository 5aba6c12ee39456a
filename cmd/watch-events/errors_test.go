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

package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"cronlab.dev/cronlab/test/say"
)

// TestListThenWatchOnErrorsAndBookmarks drives what an API server does
// rarely, with client-go's fake dynamic client and no server: a list or a
// watch that fails, an error in the middle of the watch (410 Gone, after
// which run lists again), and a bookmark. An informer's reflector handles
// each; stage 03 shows the attendee how.
func TestListThenWatchOnErrorsAndBookmarks(t *testing.T) {
	gone := apierrors.NewResourceExpired("too old resource version: 90 (120)")
	listFails := errors.New("the API server is not there")
	watchFails := errors.New("the watch was refused")
	bookmark := &unstructured.Unstructured{}
	bookmark.SetResourceVersion("130")
	modified := &unstructured.Unstructured{}
	modified.SetName("a")
	modified.SetResourceVersion("110")
	for _, tc := range []struct {
		name      string
		listErr   error
		watchErr  error
		events    []watch.Event
		wantErr   func(error) bool
		wantRV    string
		wantLines []string
	}{{
		name:    "a list that fails returns its error, and no resourceVersion to resume from",
		listErr: listFails,
		wantErr: func(err error) bool { return errors.Is(err, listFails) },
		wantRV:  "",
	}, {
		name:      "a watch that cannot start returns its error, and the list's version to resume from",
		watchErr:  watchFails,
		wantErr:   func(err error) bool { return errors.Is(err, watchFails) },
		wantRV:    "100",
		wantLines: []string{"LIST resourceVersion=100 items=1", "  a rv=90"},
	}, {
		name:      "an error event ends the watch with that error: 410 Gone, so run lists again",
		events:    []watch.Event{{Type: watch.Modified, Object: modified}, {Type: watch.Error, Object: &gone.ErrStatus}},
		wantErr:   apierrors.IsResourceExpired,
		wantRV:    "110",
		wantLines: []string{"LIST resourceVersion=100 items=1", "  a rv=90", "MODIFIED a rv=110"},
	}, {
		name:      "a bookmark moves the version on, and names no object",
		events:    []watch.Event{{Type: watch.Modified, Object: modified}, {Type: watch.Bookmark, Object: bookmark}},
		wantErr:   func(err error) bool { return err == nil },
		wantRV:    "130",
		wantLines: []string{"LIST resourceVersion=100 items=1", "  a rv=90", "MODIFIED a rv=110", "BOOKMARK rv=130"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w := &recordedWatch{events: make(chan watch.Event, len(tc.events))}
			for _, e := range tc.events {
				w.events <- e
			}
			close(w.events) // the server closes the watch after these
			c := fakeJobs(tc.listErr, tc.watchErr, w)

			var out bytes.Buffer
			rv, err := listThenWatch(context.Background(), c, jobs, "default", "", &out)
			if !tc.wantErr(err) {
				t.Error(say.Both("listThenWatch returned the error %v: not the one it met",
					"listThenWatch 返回的错误是 %v，不是它遇到的那个", err))
			}
			if rv != tc.wantRV {
				t.Error(say.Both("listThenWatch returned resourceVersion %q, want %q: where the next watch resumes",
					"listThenWatch 返回的 resourceVersion 是 %q，应为 %q：下一次 watch 从这个版本接着开始", rv, tc.wantRV))
			}
			if got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(tc.wantLines, "\n") {
				t.Error(say.Both("printed\n%s\nwant\n%s",
					"打印出\n%s\n应为\n%s", out.String(), strings.Join(tc.wantLines, "\n")))
			}
			if tc.watchErr == nil && tc.listErr == nil && !w.stopped.Load() {
				t.Error(say.Both("listThenWatch returned without stopping its watch: call Stop when done (defer w.Stop()), or the connection stays open",
					"listThenWatch 返回时没有停止它的 watch：用完要调用 Stop（defer w.Stop()），否则连接会一直开着"))
			}
		})
	}
}

// fakeJobs is a dynamic client whose list of Jobs holds Job a at version
// 90 in a list at version 100, or fails, and whose watch is w, or fails.
func fakeJobs(listErr, watchErr error, w watch.Interface) *dynamicfake.FakeDynamicClient {
	scheme := runtime.NewScheme()
	_ = kbatchv1.AddToScheme(scheme)
	c := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{jobs: "JobList"})
	c.PrependReactor("list", "jobs", func(clienttesting.Action) (bool, runtime.Object, error) {
		if listErr != nil {
			return true, nil, listErr
		}
		return true, &kbatchv1.JobList{
			ListMeta: metav1.ListMeta{ResourceVersion: "100"},
			Items:    []kbatchv1.Job{{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", ResourceVersion: "90"}}},
		}, nil
	})
	c.PrependWatchReactor("jobs", func(clienttesting.Action) (bool, watch.Interface, error) {
		if watchErr != nil {
			return true, nil, watchErr
		}
		return true, w, nil
	})
	return c
}

// recordedWatch hands out the events it was given and records Stop.
type recordedWatch struct {
	events  chan watch.Event
	stopped atomic.Bool
}

func (w *recordedWatch) ResultChan() <-chan watch.Event { return w.events }
func (w *recordedWatch) Stop()                          { w.stopped.Store(true) }
