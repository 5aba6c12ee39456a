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

// Package goyaml checks discussion question 2: is writing the API in Go
// enough? The API server never sees the Go types. It knows the CRD, YAML
// that controller-gen writes from them (`make manifests`), and it enforces
// what that YAML says, nothing more.
package goyaml

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
	"cronlab.dev/cronlab/test/utils"
)

const (
	root    = "../.."
	crdFile = "config/crd/bases/batch.cronlab.dev_cronjobs.yaml"
)

func TestTheCommittedCRDIsWhatTheGoTypesSay(t *testing.T) {
	gen, err := filepath.Abs(filepath.Join(root, "bin", "controller-gen"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gen); err != nil {
		t.Fatal(say.Both("no controller-gen at %s: run `make controller-gen`",
			"%s 处没有 controller-gen：请运行 `make controller-gen`", gen))
	}
	out := t.TempDir()
	cmd := exec.Command(gen, "crd:generateEmbeddedObjectMeta=true", "paths=./api/...", "output:crd:artifacts:config="+out)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(say.Both("controller-gen: %v\n%s",
			"controller-gen 运行失败：%v\n%s", err, msg))
	}
	fresh, err := os.ReadFile(filepath.Join(out, filepath.Base(crdFile)))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, crdFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Error(say.Both("%s is not what the Go types in api/v1 say: run `make manifests`. "+
			"The API server only ever sees this YAML, so a marker that is not in it does nothing",
			"%s 与 api/v1 中的 Go 类型不一致：请运行 `make manifests`。"+
				"API 服务器只看得到这份 YAML，所以不在其中的标记不起任何作用", crdFile))
	}
}

func TestTheAPIServerRefusesABadTimeZoneName(t *testing.T) {
	c, _ := apiServer(t)
	cj := cronJob("bad-zone", "Europe/Ber lin")
	err := c.Create(context.Background(), cj)
	if err == nil {
		t.Fatal(say.Both("the API server accepted timeZone %q: the CRD in %s has no pattern for spec.timeZone. "+
			"Add the +kubebuilder:validation:Pattern marker to TimeZone, then run `make manifests`: "+
			"the API server knows only the YAML",
			"API 服务器接受了 timeZone %q："+
				"%s 中的 CRD 没有为 spec.timeZone 设置 pattern。"+
				"请给 TimeZone 加上 +kubebuilder:validation:Pattern 标记，"+
				"然后运行 `make manifests`：API 服务器只认 YAML", *cj.Spec.TimeZone, crdFile))
	}
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.timeZone") {
		t.Error(say.Both("want an Invalid error about spec.timeZone, got: %v",
			"应为一个关于 spec.timeZone 的 Invalid 错误，得到的是：%v", err))
	}
}

func TestAFieldMissingFromTheCRDIsDroppedUntilTheCRDIsReinstalled(t *testing.T) {
	ctx := context.Background()
	current := loadCRD(t)

	// The CRD as `make manifests` wrote it before TimeZone was added to the
	// Go type: the same file without spec.timeZone.
	stale := current.DeepCopy()
	delete(stale.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties, "timeZone")
	c, warnings := apiServer(t)
	install(t, c, stale, false)
	warnings.reset()

	// A Go client sends the field. The API server prunes what its schema
	// does not know, stores the rest, and only warns.
	cj := cronJob("pruned", "Not a zone!")
	if err := c.Create(ctx, cj); err != nil {
		t.Fatal(say.Both("with a CRD that lacks the field, create must succeed (the field is pruned): %v",
			"CRD 中缺少该字段时，创建必须成功（该字段会被剪裁掉）：%v", err))
	}
	if got := get(t, c, cj).Spec.TimeZone; got != nil {
		t.Error(say.Both("the stored CronJob has timeZone %q: the API server must have pruned it",
			"存储的 CronJob 中有 timeZone %q：API 服务器本应把它剪裁掉", *got))
	}
	if !warnings.saw(`unknown field "spec.timeZone"`) {
		t.Error(say.Both("the API server should have warned about the unknown field; warnings: %v",
			"API 服务器本应对未知字段发出警告；收到的警告：%v", warnings.all()))
	}
	// kubectl asks for strict field validation, and then it is an error.
	strict := cronJob("strict", "Europe/Berlin")
	if err := c.Create(ctx, strict, client.FieldValidation("Strict")); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Error(say.Both("with fieldValidation=Strict (what kubectl uses) an unknown field must be refused; got %v",
			"使用 fieldValidation=Strict（kubectl 所用的设置）时，未知字段必须被拒绝；得到的是 %v", err))
	}

	// Reinstall the CRD as it is now (`make install` after `make manifests`).
	install(t, c, current, true)
	// And now the marker works too.
	if err := c.Create(ctx, cronJob("bad-zone", "Not a zone!")); !apierrors.IsInvalid(err) {
		t.Error(say.Both("with the regenerated CRD installed, a bad time zone name must be Invalid; got %v. "+
			"Is the +kubebuilder:validation:Pattern marker on TimeZone, and did you run `make manifests`?",
			"安装了重新生成的 CRD 之后，不合法的时区名必须得到 Invalid；得到的是 %v。"+
				"TimeZone 上有 +kubebuilder:validation:Pattern 标记吗？你运行 `make manifests` 了吗？", err))
	}
}

func loadCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, crdFile))
	if err != nil {
		t.Fatal(say.Both("no CRD: run `make manifests` (%v)",
			"没有找到 CRD：请运行 `make manifests`（%v）", err))
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatal(err)
	}
	return &crd
}

// The tests of this package share one API server, started by the first test
// that asks for it (apiServer) and stopped by TestMain: starting one takes
// seconds, and the tests only need the CRD each installs.
var server struct {
	once     sync.Once
	env      *envtest.Environment
	c        client.Client
	warnings *warningLog
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server.env != nil {
		_ = server.env.Stop()
	}
	os.Exit(code)
}

// apiServer returns a direct client of an envtest API server on which the
// CRD of config/crd/bases is installed, and what the API server warns the
// client about.
func apiServer(t *testing.T) (client.Client, *warningLog) {
	t.Helper()
	server.once.Do(func() { server.c, server.warnings, server.err = startAPIServer(loadCRD(t)) })
	if server.err != nil {
		t.Fatal(server.err)
	}
	// A test that installs another version of the CRD puts back the current
	// one when it ends.
	t.Cleanup(func() { install(t, server.c, loadCRD(t), true) })
	return server.c, server.warnings
}

func startAPIServer(crd *apiextensionsv1.CustomResourceDefinition) (client.Client, *warningLog, error) {
	assets, err := utils.EnvtestAssets(root)
	if err != nil {
		return nil, nil, err
	}
	server.env = utils.WithoutWatchCache(&envtest.Environment{
		CRDs:                  []*apiextensionsv1.CustomResourceDefinition{crd},
		BinaryAssetsDirectory: assets,
		// These tests install CRDs of their own making; on a shared API
		// server (USE_EXISTING_CLUSTER, as bin/lab uses) they would replace
		// the one other tests expect. Always our own.
		UseExistingCluster: ptr.To(false),
	})
	cfg, err := utils.StartEnvtest(server.env)
	if err != nil {
		return nil, nil, err
	}
	warnings := &warningLog{}
	cfg.WarningHandler = warnings
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{batchv1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, nil, err
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	return c, warnings, err
}

// install replaces the installed CRD's spec with crd's (what `make install`
// does) and waits until the API server serves it: the API server rebuilds
// its handler for a new schema in the background. keepsTimeZone says
// whether the new schema has spec.timeZone, which is how the wait tells.
func install(t *testing.T, c client.Client, crd *apiextensionsv1.CustomResourceDefinition, keepsTimeZone bool) {
	t.Helper()
	ctx := context.Background()
	var installed apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, &installed); err != nil {
		t.Fatal(err)
	}
	installed.Spec = crd.Spec
	if err := c.Update(ctx, &installed); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		probe := cronJob("", "Europe/Berlin")
		probe.GenerateName = "probe-"
		if err := c.Create(ctx, probe); err != nil {
			t.Fatal(err)
		}
		kept := get(t, c, probe).Spec.TimeZone != nil
		if err := c.Delete(ctx, probe); err != nil {
			t.Fatal(err)
		}
		if kept == keepsTimeZone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(say.Both("the reinstalled CRD was not served within 30s",
				"重新安装的 CRD 在 30s 内没有开始提供服务"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cronJob(name, zone string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.CronJobSpec{
			Schedule: "@hourly",
			TimeZone: ptr.To(zone),
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
}

func get(t *testing.T, c client.Client, cj *batchv1.CronJob) *batchv1.CronJob {
	t.Helper()
	var got batchv1.CronJob
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cj), &got); err != nil {
		t.Fatal(err)
	}
	return &got
}

// warningLog keeps the Warning headers of the API server's responses.
type warningLog struct {
	mu   sync.Mutex
	list []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warningLog) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = nil
}

func (w *warningLog) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

func (w *warningLog) saw(s string) bool {
	for _, text := range w.all() {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
