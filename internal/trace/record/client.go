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

package record

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"cronlab.dev/cronlab/internal/trace"
)

// reconcileKey carries the number of the reconcile a call belongs to;
// notOurs marks a reconcile of another namespace than the Recorder's,
// whose calls are not recorded.
type reconcileKey struct{}

const notOurs = -1

func reconcileOf(ctx context.Context) int {
	n, _ := ctx.Value(reconcileKey{}).(int)
	return n
}

// Reconciler records each call of inner: its start, with the request and
// controller-runtime's reconcileID, and its end, with the result. The
// reads and writes made through a Client of the same Recorder in between
// carry the reconcile's number.
func (r *Recorder) Reconciler(inner reconcile.Reconciler) reconcile.Reconciler {
	if r == nil {
		return inner
	}
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if !r.ours(req.Namespace) {
			// A controller reconciles every namespace; a spec's trace
			// keeps to its own.
			return inner.Reconcile(context.WithValue(ctx, reconcileKey{}, notOurs), req)
		}
		r.mu.Lock()
		r.reconciles++
		n := r.reconciles
		r.mu.Unlock()
		r.emit(trace.Event{Lane: trace.LaneReconcile, Kind: trace.Start, Reconcile: n,
			ReconcileID: string(crcontroller.ReconcileIDFromContext(ctx)), Request: req.String()})
		res, err := inner.Reconcile(context.WithValue(ctx, reconcileKey{}, n), req)
		r.emit(trace.Event{Lane: trace.LaneReconcile, Kind: trace.End, Reconcile: n,
			Result: describe(res.RequeueAfter, err), Error: reason(err)})
		return res, err
	})
}

// Client records the reads (answered from source: trace.FromCache for the
// manager's client) and the writes made through c. Reads and writes
// outside a reconcile are the spec's own.
func (r *Recorder) Client(c client.Client, source string) client.Client {
	if r == nil {
		return c
	}
	return interceptor.NewClient(withWatch{c}, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return r.get(ctx, c, source, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return r.list(ctx, c, source, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return r.wrote(ctx, "create", obj, c.Create(ctx, obj, opts...))
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return r.wrote(ctx, "update", obj, c.Update(ctx, obj, opts...))
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			body := patchBody(patch, obj)
			return r.wrote(withPatch(ctx, body), "patch", obj, c.Patch(ctx, obj, patch, opts...))
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return r.wrote(ctx, "delete", obj, c.Delete(ctx, obj, opts...))
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return r.wrote(ctx, sub+"-update", obj, c.SubResource(sub).Update(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			body := patchBody(patch, obj)
			return r.wrote(withPatch(ctx, body), sub+"-patch", obj, c.SubResource(sub).Patch(ctx, obj, patch, opts...))
		},
	})
}

// Reader records the reads of an API reader (the manager's GetAPIReader).
func (r *Recorder) Reader(c client.Reader) client.Reader {
	if r == nil {
		return c
	}
	return reader{r, c}
}

type reader struct {
	r *Recorder
	c client.Reader
}

func (rd reader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return rd.r.get(ctx, rd.c, trace.FromAPI, key, obj, opts...)
}

func (rd reader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return rd.r.list(ctx, rd.c, trace.FromAPI, list, opts...)
}

func (r *Recorder) get(ctx context.Context, c client.Reader, source string, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if reconcileOf(ctx) == notOurs {
		return c.Get(ctx, key, obj, opts...)
	}
	seq := r.reserve()
	err := c.Get(ctx, key, obj, opts...)
	ref := r.ref(obj)
	ref.Namespace, ref.Name = key.Namespace, key.Name
	if err != nil {
		ref.RV, ref.Owner, ref.OwnerUID = "", "", ""
	}
	r.emit(trace.Event{Seq: seq, Lane: trace.LaneReconcile, Kind: trace.Read, Reconcile: reconcileOf(ctx),
		Actor: actor(ctx), Source: source, Verb: "get", Object: ref, Error: reason(err)})
	return err
}

func (r *Recorder) list(ctx context.Context, c client.Reader, source string, list client.ObjectList, opts ...client.ListOption) error {
	if reconcileOf(ctx) == notOurs {
		return c.List(ctx, list, opts...)
	}
	seq := r.reserve()
	err := c.List(ctx, list, opts...)
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	q := &trace.ListQuery{Namespace: lo.Namespace}
	if gvk, gerr := apiutil.GVKForObject(list, r.scheme); gerr == nil {
		q.Kind = strings.TrimSuffix(gvk.Kind, "List")
	}
	if lo.FieldSelector != nil {
		if reqs := lo.FieldSelector.Requirements(); len(reqs) > 0 {
			q.Owner = reqs[0].Value
		}
	}
	e := trace.Event{Seq: seq, Lane: trace.LaneReconcile, Kind: trace.Read, Reconcile: reconcileOf(ctx),
		Actor: actor(ctx), Source: source, Verb: "list", List: q, Error: reason(err), Items: []trace.Ref{}}
	if err == nil {
		items, _ := meta.ExtractList(list)
		for _, item := range items {
			if obj, ok := item.(client.Object); ok {
				ref := r.ref(obj)
				if ref.Kind == "" {
					ref.Kind = q.Kind
				}
				e.Items = append(e.Items, *ref)
			}
		}
	}
	r.emit(e)
	return err
}

// wrote records a write after the API server answered it: the object's
// resourceVersion is then the one the write made.
func (r *Recorder) wrote(ctx context.Context, verb string, obj client.Object, err error) error {
	if reconcileOf(ctx) == notOurs {
		return err
	}
	ref := r.ref(obj)
	if verb == "delete" {
		ref.RV = "" // a delete leaves obj as it was given
	}
	body, _ := ctx.Value(patchKey{}).(string)
	r.emit(trace.Event{Lane: trace.LaneReconcile, Kind: trace.Write, Reconcile: reconcileOf(ctx),
		Actor: actor(ctx), Verb: verb, Object: ref, Patch: body, Error: reason(err)})
	return err
}

// patchKey carries a patch's body from the call to its record.
type patchKey struct{}

func withPatch(ctx context.Context, body string) context.Context {
	return context.WithValue(ctx, patchKey{}, body)
}

// patchBody is what a patch will send, read before it is sent (a merge
// patch is computed from obj as it is then), cut at 2 KiB.
func patchBody(patch client.Patch, obj client.Object) string {
	data, err := patch.Data(obj)
	if err != nil {
		return ""
	}
	if len(data) > 2048 {
		return string(data[:2048]) + "…"
	}
	return string(data)
}

// actor is who made a call that is not part of a reconcile: the spec.
func actor(ctx context.Context) string {
	if reconcileOf(ctx) == 0 {
		return "spec"
	}
	return ""
}

// withWatch lets the interceptor wrap a client without Watch, such as the
// manager's: nothing recorded here watches through it.
type withWatch struct{ client.Client }

func (withWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	panic("record: the recorded client does not watch")
}
