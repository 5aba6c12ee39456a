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

package mutants

// The Kubernetes operators: mistakes that no single-token change makes,
// for they are about what a name of the Kubernetes API means. Each one is
// applied by rule wherever the reference's code matches it, like the
// generic ones; the tables below are the rules, one mistake a row. A
// mistake that does not compile where it lands (a sibling with another
// signature, a package the file does not import) is set aside by the type
// checker, as a generic mutant is.

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

const (
	// SiblingCall uses an API's sibling for it: the same arguments, another
	// meaning.
	SiblingCall Op = "sibling call"
	// PatchToUpdate writes the whole object where the reference patches:
	// the write conflicts with, or overwrites, what another writer changed.
	PatchToUpdate Op = "patch to update"
	// UpdateToPatch patches where the reference updates, with the patch's
	// base taken from the object as it is now, after the change: the patch
	// is empty, and the write is lost.
	UpdateToPatch Op = "update to patch"
	// CacheRead reads from the manager's cache where the reference reads
	// from the API server (r.APIReader): a read that can be stale.
	CacheRead Op = "cache read"
	// DirectRead reads from the API server where the reference reads from
	// the cache: a load on the API server that the cache is there to spare.
	DirectRead Op = "direct read"
	// WallClock reads the machine's clock where the reference reads the
	// injected one: a test that moves its fake clock no longer moves it.
	WallClock Op = "wall clock"
	// SwapEnum takes one case of an enumeration for another.
	SwapEnum Op = "swap enum"
	// LooseCondition reads a condition more loosely: a status that is not
	// False for one that is True, a Job condition set before the Job ends
	// for the one set when it has.
	LooseCondition Op = "loose condition"
	// DropOption leaves an option out of a call: a List that selects
	// more, a Delete without its precondition, a handler that maps any owner.
	DropOption Op = "drop option"
	// DropMetaField leaves a field out of an ObjectMeta literal: the label,
	// annotation or owner reference that other code looks the object up by.
	DropMetaField Op = "drop meta field"
	// DropWatch leaves Owns or Watches out of a controller's wiring: the
	// events of those objects bring no reconcile.
	DropWatch Op = "drop watch"
	// ReverseSort sorts the other way round: the newest taken for the oldest.
	ReverseSort Op = "reverse sort"
	// SortKey keys a comparator on another field of the same type: the
	// Jobs ordered by when they ended for when they started.
	SortKey Op = "sort key"
)

// Generic are the operators that know nothing of Kubernetes, and
// Kubernetes those that do; a report shows the two apart.
var (
	Generic    = []Op{RemoveStatement, NegateCondition, MoveBoundary, DropOperand, SwallowError, ReturnZero}
	Kubernetes = []Op{SiblingCall, PatchToUpdate, UpdateToPatch, CacheRead, DirectRead, WallClock, SwapEnum,
		LooseCondition, DropOption, DropMetaField, DropWatch, ReverseSort, SortKey}
)

// IsKubernetes tells an operator of the Kubernetes table from a generic one.
func (o Op) IsKubernetes() bool { return slices.Contains(Kubernetes, o) || slices.Contains(Schema, o) }

// Import paths the tables name.
const (
	apiErrors      = "k8s.io/apimachinery/pkg/api/errors"
	apiMeta        = "k8s.io/apimachinery/pkg/api/meta"
	metaV1         = "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreV1         = "k8s.io/api/core/v1"
	batchV1        = "k8s.io/api/batch/v1"
	crClient       = "sigs.k8s.io/controller-runtime/pkg/client"
	crHandler      = "sigs.k8s.io/controller-runtime/pkg/handler"
	controllerutil = "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	cronlabAPI     = "cronlab.dev/cronlab/api" // v1 and v2
)

// A rename takes one exported name of a package for another where the code
// names it (pkg.From): the same type, another meaning.
type rename struct {
	op       Op
	path     string // the package, by import path; a path also stands for the packages under it
	from, to string
	both     bool // the other way round too
}

var renames = []rename{
	// A controller reference makes the owner the one that reconciles the
	// object (Owns routes its events by it, adoption checks it); a plain
	// owner reference only lets the garbage collector delete it.
	{SiblingCall, controllerutil, "SetControllerReference", "SetOwnerReference", true},
	// A label selects (the cache's label selector, MatchingLabels); an
	// annotation only records.
	{SiblingCall, metaV1, "SetMetaDataLabel", "SetMetaDataAnnotation", true},
	// Which write gets which error: a Create of a name taken is
	// AlreadyExists, a precondition or resourceVersion that no longer holds
	// Conflict, a Get or Delete of nothing NotFound.
	{SiblingCall, apiErrors, "IsNotFound", "IsAlreadyExists", true},
	{SiblingCall, apiErrors, "IsNotFound", "IsConflict", true},
	{SiblingCall, apiErrors, "IsAlreadyExists", "IsConflict", true},
	// The concurrency policies: Forbid skips a run while one is active,
	// Replace deletes the active one, Allow does neither.
	{SwapEnum, cronlabAPI, "ForbidConcurrent", "ReplaceConcurrent", true},
	{SwapEnum, cronlabAPI, "ForbidConcurrent", "AllowConcurrent", true},
	{SwapEnum, cronlabAPI, "ReplaceConcurrent", "AllowConcurrent", true},
	// A Job that succeeded for one that failed: which history limit it
	// counts against, which time the status keeps.
	{SwapEnum, batchV1, "JobComplete", "JobFailed", true},
	// A condition's status read the other way round.
	{SwapEnum, metaV1, "ConditionTrue", "ConditionFalse", true},
	{SwapEnum, coreV1, "ConditionTrue", "ConditionFalse", true},
	// An Event's type: a warning is what kubectl get events --field-selector
	// type=Warning and the alerts built on it look for.
	{SwapEnum, coreV1, "EventTypeNormal", "EventTypeWarning", true},
	// How a Delete treats what the object owns: Background deletes the
	// pods after the Job, Foreground before it, Orphan leaves them running.
	{SwapEnum, metaV1, "DeletePropagationBackground", "DeletePropagationForeground", true},
	{SwapEnum, metaV1, "DeletePropagationBackground", "DeletePropagationOrphan", true},
	// The Job controller sets SuccessCriteriaMet and FailureTarget first,
	// and Complete or Failed only once the Job's pods have ended: reading
	// the early ones counts a Job as finished while its pods still run.
	{LooseCondition, batchV1, "JobComplete", "JobSuccessCriteriaMet", false},
	{LooseCondition, batchV1, "JobFailed", "JobFailureTarget", false},
}

// An option is an argument of a call that selects or guards: leaving it
// out compiles, and widens what the call reads, deletes or maps.
type option struct {
	path, name string
}

var options = []option{
	// A List without its namespace reads every namespace the cache holds.
	{crClient, "InNamespace"},
	// A List without its field or label selector reads every object of
	// the kind: Jobs that another CronJob, or no CronJob, controls.
	{crClient, "MatchingFields"},
	{crClient, "MatchingLabels"},
	{crClient, "HasLabels"},
	{crClient, "MatchingLabelsSelector"},
	// A Delete without its UID precondition deletes whatever has the name
	// now, maybe a new object that took it.
	{crClient, "Preconditions"},
	// A Delete without its propagation policy gets the kind's default: for
	// a Job, orphaned pods.
	{crClient, "PropagationPolicy"},
	// EnqueueRequestForOwner without it maps a Job to any owner of the
	// right kind, also one that does not control it.
	{crHandler, "OnlyControllerOwner"},
}

// metaFields are the fields of an ObjectMeta that other code finds an object
// by, or that tie it to its owner: left out of a literal, the object is made
// without them.
var metaFields = []string{"Namespace", "Labels", "Annotations", "OwnerReferences", "Finalizers"}

// kubeCall makes the mutants of one call that the Kubernetes operators
// have a rule for.
func (f function) kubeCall(call *ast.CallExpr) []Mutant {
	var out []Mutant
	out = append(out, f.dropOptions(call)...)
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return out
	}
	name := sel.Sel.Name
	// A method named Patch or Update that calls Patch or Update passes
	// the verb on (a wrapper of the client): a swap there is no mistake
	// anyone makes.
	wrapper := f.decl.Name.Name == "Patch" || f.decl.Name.Name == "Update"
	switch {
	case (name == "Get" || name == "List") && len(call.Args) >= 3:
		out = append(out, f.reads(call, sel)...)
	case name == "Patch" && len(call.Args) >= 3 && !f.isPackage(sel.X) && !wrapper:
		args := f.text(call.Args[0]) + ", " + f.text(call.Args[1])
		out = append(out, f.change(PatchToUpdate, call.Pos(), call.End(), f.text(sel.X)+".Update("+args+")"))
	case name == "Update" && len(call.Args) >= 2 && !f.isPackage(sel.X) && f.imports[crClient] != "" && !wrapper:
		obj := f.text(call.Args[1])
		if strings.HasPrefix(obj, "&") {
			obj = "(" + obj + ")"
		}
		args := f.text(call.Args[0]) + ", " + f.text(call.Args[1])
		out = append(out, f.change(UpdateToPatch, call.Pos(), call.End(),
			f.text(sel.X)+".Patch("+args+", "+f.imports[crClient]+".MergeFrom("+obj+".DeepCopy()))"))
	case len(call.Args) == 0 && (name == "now" || (name == "Now" && strings.HasSuffix(strings.ToLower(f.text(sel.X)), "clock"))):
		if f.imports["time"] != "" {
			out = append(out, f.change(WallClock, call.Pos(), call.End(), f.imports["time"]+".Now()"))
		}
	case (name == "Owns" || name == "Watches") && isCall(sel.X) && !f.isPackage(sel.X):
		out = append(out, f.change(DropWatch, call.Pos(), call.End(), f.text(sel.X)))
	case name == "NewControllerRef" && len(call.Args) == 2 && f.pkgOf(sel.X) == metaV1:
		// An owner reference written out by hand, without Controller:
		// what SetOwnerReference writes where SetControllerReference was
		// meant.
		owner, gvk, m := f.text(call.Args[0]), f.text(call.Args[1]), f.text(sel.X)
		out = append(out, f.change(SiblingCall, call.Pos(), call.End(),
			"&"+m+".OwnerReference{APIVersion: "+gvk+".GroupVersion().String(), Kind: "+gvk+".Kind, Name: "+owner+".GetName(), UID: "+owner+".GetUID()}"))
	case name == "IsStatusConditionTrue" && f.pkgOf(sel.X) == apiMeta:
		out = append(out, f.change(LooseCondition, call.Pos(), call.End(),
			"!"+f.text(sel.X)+".IsStatusConditionFalse("+f.argsText(call)+")"))
	}
	return out
}

// reads swaps where a Get or a List reads: r.APIReader.Get for r.Get, and
// r.Get (or r.Client.Get) for r.APIReader.Get, on the method's receiver.
func (f function) reads(call *ast.CallExpr, sel *ast.SelectorExpr) []Mutant {
	if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "APIReader" {
		return []Mutant{f.change(CacheRead, sel.X.Pos(), sel.X.End(), f.text(inner.X))}
	}
	recv := f.receiver()
	if recv == "" {
		return nil
	}
	switch x := f.text(sel.X); x {
	case recv, recv + ".Client":
		return []Mutant{f.change(DirectRead, sel.X.Pos(), sel.X.End(), recv+".APIReader")}
	}
	return nil
}

// dropOptions leaves out, one at a time, each argument of a call that is
// an option of the table: pkg.Name(...) or pkg.Name{...}.
func (f function) dropOptions(call *ast.CallExpr) []Mutant {
	var out []Mutant
	for i, a := range call.Args {
		if i == 0 {
			continue
		}
		var fun ast.Expr
		switch a := a.(type) {
		case *ast.CallExpr:
			fun = a.Fun
		case *ast.CompositeLit:
			fun = a.Type
		}
		sel, ok := fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains(options, option{f.pkgOf(sel.X), sel.Sel.Name}) {
			continue
		}
		// From the end of the argument before: its comma goes with it.
		out = append(out, f.change(DropOption, call.Args[i-1].End(), a.End(), ""))
		out[len(out)-1].Was = f.text(a)
	}
	return out
}

// rename makes the mutants of a name of a package that the table of
// renames lists.
func (f function) rename(sel *ast.SelectorExpr) []Mutant {
	path := f.pkgOf(sel.X)
	if path == "" {
		return nil
	}
	var out []Mutant
	for _, r := range renames {
		if path != r.path && !strings.HasPrefix(path, r.path+"/") {
			continue
		}
		to := ""
		switch {
		case sel.Sel.Name == r.from:
			to = r.to
		case sel.Sel.Name == r.to && r.both:
			to = r.from
		default:
			continue
		}
		out = append(out, f.change(r.op, sel.Pos(), sel.End(), f.text(sel.X)+"."+to))
	}
	return out
}

// looseStatus reads a comparison with ConditionTrue or ConditionFalse more
// loosely: x == True becomes x != False, which an Unknown status passes.
func (f function) looseStatus(e *ast.BinaryExpr) []Mutant {
	if e.Op != token.EQL {
		return nil
	}
	for _, side := range []ast.Expr{e.X, e.Y} {
		sel, ok := side.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		if p := f.pkgOf(sel.X); p != metaV1 && p != coreV1 {
			continue
		}
		other := map[string]string{"ConditionTrue": "ConditionFalse", "ConditionFalse": "ConditionTrue"}[sel.Sel.Name]
		if other == "" {
			continue
		}
		x, y := f.text(e.X), f.text(e.Y)
		if side == e.X {
			x = f.text(sel.X) + "." + other
		} else {
			y = f.text(sel.X) + "." + other
		}
		return []Mutant{f.change(LooseCondition, e.Pos(), e.End(), x+" != "+y)}
	}
	return nil
}

// dropMetaFields leaves out, one at a time, the fields of an ObjectMeta
// literal that metaFields lists.
func (f function) dropMetaFields(lit *ast.CompositeLit) []Mutant {
	sel, ok := lit.Type.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "ObjectMeta" || f.pkgOf(sel.X) != metaV1 {
		return nil
	}
	var out []Mutant
	for i, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if key, ok := kv.Key.(*ast.Ident); !ok || !slices.Contains(metaFields, key.Name) {
			continue
		}
		// The field and the comma after it: up to the next field, or, for
		// the last one, from the end of the one before.
		var m Mutant
		switch {
		case i+1 < len(lit.Elts):
			m = f.change(DropMetaField, e.Pos(), lit.Elts[i+1].Pos(), "")
		case i > 0:
			m = f.change(DropMetaField, lit.Elts[i-1].End(), e.End(), "")
		default:
			m = f.change(DropMetaField, e.Pos(), e.End(), "")
		}
		m.Was = oneLine(f.text(e))
		out = append(out, m)
	}
	return out
}

// reverseSort sorts the other way round: slices.Sort, SortFunc and
// SortStableFunc are followed by slices.Reverse; sort.Slice and
// sort.SliceStable have their less function's parameters swapped;
// sort.Sort and sort.Stable sort sort.Reverse of their data.
func (f function) reverseSort(st *ast.ExprStmt) []Mutant {
	call, ok := st.X.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	switch path, name := f.pkgOf(sel.X), sel.Sel.Name; {
	case path == "slices" && (name == "Sort" || name == "SortFunc" || name == "SortStableFunc"):
		return []Mutant{f.change(ReverseSort, call.Pos(), call.End(), f.text(call)+"; "+f.text(sel.X)+".Reverse("+f.text(call.Args[0])+")")}
	case path == "sort" && (name == "Slice" || name == "SliceStable") && len(call.Args) == 2:
		lit, ok := call.Args[1].(*ast.FuncLit)
		if !ok || len(lit.Type.Params.List) != 1 || len(lit.Type.Params.List[0].Names) != 2 {
			return nil
		}
		p := lit.Type.Params.List[0]
		swapped := p.Names[1].Name + ", " + p.Names[0].Name + " " + f.text(p.Type)
		return []Mutant{f.change(ReverseSort, p.Pos(), p.End(), swapped)}
	case path == "sort" && (name == "Sort" || name == "Stable") && len(call.Args) == 1:
		return []Mutant{f.change(ReverseSort, call.Args[0].Pos(), call.Args[0].End(), f.text(sel.X)+".Reverse("+f.text(call.Args[0])+")")}
	}
	return nil
}

// pkgOf is the import path of the package an expression names, or "".
func (f function) pkgOf(x ast.Expr) string {
	id, ok := x.(*ast.Ident)
	if !ok {
		return ""
	}
	for path, name := range f.imports {
		if name == id.Name {
			return path
		}
	}
	return ""
}

func (f function) isPackage(x ast.Expr) bool { return f.pkgOf(x) != "" }

// receiver is the name of the method's receiver, or "".
func (f function) receiver() string {
	if f.decl.Recv == nil || len(f.decl.Recv.List) != 1 || len(f.decl.Recv.List[0].Names) != 1 {
		return ""
	}
	return f.decl.Recv.List[0].Names[0].Name
}

func (f function) argsText(call *ast.CallExpr) string {
	var args []string
	for _, a := range call.Args {
		args = append(args, f.text(a))
	}
	return strings.Join(args, ", ")
}

func isCall(x ast.Expr) bool {
	_, ok := x.(*ast.CallExpr)
	return ok
}

// importNames are the names a file gives its imports, by path: its own
// name, or the last element of the path.
func importNames(file *ast.File) map[string]string {
	names := map[string]string{}
	for _, imp := range file.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name != "_" && name != "." {
			names[path] = name
		}
	}
	return names
}

// sortKeys are fields of one type, side by side in one struct, that an
// order may be keyed on: taken one for the other, the comparator still
// compiles, and orders by something else.
var sortKeys = [][2]string{
	{"StartTime", "CompletionTime"},            // batch/v1 JobStatus: when a Job started, when it ended
	{"LastScheduleTime", "LastSuccessfulTime"}, // a CronJob's status: the last run started, the last that succeeded
}

// sortKey keys a comparator on the other field of a pair: in a function of
// two parameters of one type that returns an int or a bool (what
// slices.SortFunc and sort.Slice call), every selection of the field
// becomes the other, all at once, so that its nil checks still match.
func (f function) sortKey() []Mutant {
	t := f.decl.Type
	if t.Params == nil || t.Results == nil || len(t.Results.List) != 1 || len(t.Results.List[0].Names) > 1 {
		return nil
	}
	if r := f.text(t.Results.List[0].Type); r != "int" && r != "bool" {
		return nil
	}
	params, typ := 0, ""
	for _, p := range t.Params.List {
		if typ != "" && f.text(p.Type) != typ {
			return nil
		}
		typ = f.text(p.Type)
		params += len(p.Names)
	}
	if params != 2 || f.decl.Body == nil {
		return nil
	}
	start := f.fset.Position(f.decl.Pos()).Offset
	whole := string(f.src[start:f.fset.Position(f.decl.End()).Offset])
	var out []Mutant
	for _, pair := range sortKeys {
		for _, way := range [][2]string{pair, {pair[1], pair[0]}} {
			var at []*ast.Ident
			ast.Inspect(f.decl.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == way[0] {
					at = append(at, sel.Sel)
				}
				return true
			})
			if len(at) == 0 {
				continue
			}
			mutated := whole
			for i := len(at) - 1; i >= 0; i-- { // from the end, so that earlier offsets hold
				a := f.fset.Position(at[i].Pos()).Offset - start
				mutated = mutated[:a] + way[1] + mutated[a+len(way[0]):]
			}
			out = append(out, Mutant{File: f.file, Func: f.name, Line: f.fset.Position(at[0].Pos()).Line, Op: SortKey,
				Was: "." + way[0], Now: "." + way[1], whole: whole, mutated: mutated})
		}
	}
	return out
}
