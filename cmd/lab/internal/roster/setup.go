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

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// Cluster is the cluster of the current kubeconfig, as the instructor has it.
type Cluster struct {
	Config  *rest.Config
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	Context string
}

// Connect reads the kubeconfig as kubectl does (KUBECONFIG, else
// ~/.kube/config) and uses its current context.
func Connect() (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, err
	}
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, i18n.Errorf("no cluster to prepare: %w (kubectl config current-context says which one kubectl uses)",
			"没有可准备的集群：%w（kubectl config current-context 显示 kubectl 用的是哪一个）", err)
	}
	return NewCluster(cfg, raw.CurrentContext)
}

func NewCluster(cfg *rest.Config, context string) (*Cluster, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{Config: cfg, Kube: kube, Dynamic: dyn, Context: context}, nil
}

// Options of lab class setup.
type Options struct {
	Class  string        // the class's name: namespaces are <class>-<name>
	Out    string        // where the kubeconfigs go
	TTL    time.Duration // how long the attendees' tokens last
	CRDDir string        // config/crd/bases of the clone
}

// Setup prepares the class: the CRD once, then each attendee. It may run
// again: what exists is brought back to what it should be, and every
// attendee gets a fresh token (and so a fresh kubeconfig).
func Setup(ctx context.Context, l i18n.Lang, c *Cluster, names []string, o Options) ([]string, error) {
	if err := installCRD(ctx, l, c, o); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o700); err != nil {
		return nil, err
	}
	var files []string
	for i, name := range names {
		expires, err := prepare(ctx, c, o, name)
		if err != nil {
			return files, i18n.Errorf("preparing %s: %w", "准备 %s 时出错：%w", Namespace(o.Class, name), err)
		}
		file := filepath.Join(o.Out, name+".kubeconfig")
		if err := writeKubeconfig(c, o.Class, name, expires, file); err != nil {
			return files, err
		}
		files = append(files, file)
		fmt.Printf(l.Tr("  [%d/%d] %s: namespace, ServiceAccount, Role, RoleBinding; %s (token valid until %s)\n",
			"  [%d/%d] %s：名字空间、ServiceAccount、Role、RoleBinding；%s（令牌有效期至 %s）\n"),
			i+1, len(names), Namespace(o.Class, name), file, expires.token.Local().Format("Jan 2 15:04"))
	}
	return files, nil
}

// issued is a token and when it expires.
type issued struct {
	value string
	token time.Time
}

func prepare(ctx context.Context, c *Cluster, o Options, name string) (issued, error) {
	apply := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	ns := Namespace(o.Class, name)
	existing, err := c.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err == nil && existing.DeletionTimestamp != nil {
		return issued{}, i18n.Errorf("the namespace %s is still being deleted (a teardown): run setup again once it is gone (kubectl get namespace %s)",
			"名字空间 %s 还在删除中（之前的 teardown）：等它消失后再运行 setup（kubectl get namespace %s）", ns, ns)
	}
	if err == nil && existing.Labels[ClassLabel] != o.Class {
		// A namespace of the same name that setup did not make (or made
		// for another class): taking it over would let teardown delete it.
		return issued{}, i18n.Errorf("the namespace %s exists and is not this class's (label %s=%q): choose another --class",
			"名字空间 %s 已经存在，而且不属于这个班级（标签 %s=%q）：请换一个 --class", ns, ClassLabel, existing.Labels[ClassLabel])
	}
	if _, err := c.Kube.CoreV1().Namespaces().Apply(ctx, namespace(o.Class, name), apply); err != nil {
		return issued{}, err
	}
	if _, err := c.Kube.CoreV1().ServiceAccounts(ns).Apply(ctx, serviceAccount(o.Class, name), apply); err != nil {
		return issued{}, err
	}
	if _, err := c.Kube.RbacV1().Roles(ns).Apply(ctx, role(o.Class, name), apply); err != nil {
		return issued{}, err
	}
	if _, err := c.Kube.RbacV1().RoleBindings(ns).Apply(ctx, roleBinding(o.Class, name), apply); err != nil {
		return issued{}, err
	}
	tr, err := c.Kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, Account, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(o.TTL.Seconds()))},
	}, metav1.CreateOptions{})
	if err != nil {
		return issued{}, i18n.Errorf("the TokenRequest API refused a token: %w", "TokenRequest API 拒绝签发令牌：%w", err)
	}
	return issued{value: tr.Status.Token, token: tr.Status.ExpirationTimestamp.Time}, nil
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// InstalledBy is the CRD's annotation when this class's setup installed
// it: teardown removes the CRD only then, as it removes only what setup made.
const InstalledBy = "class.cronlab.dev/installed-by"

// installCRD creates the clone's CRDs that the cluster lacks, and waits
// until the API server serves them, so that an attendee can create a
// CronJob at once. A CRD already there is left as it is: it belongs to
// whoever installed it (make install, the chart), who may have served v2
// through the webhook, and taking its fields over would make their next
// server-side apply conflict.
func installCRD(ctx context.Context, l i18n.Lang, c *Cluster, o Options) error {
	files, err := filepath.Glob(filepath.Join(o.CRDDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return i18n.Errorf("no CRD in %s: run this in your clone of the lab (make manifests writes them)", "%s 中没有 CRD：请在你的 lab 克隆中运行（make manifests 会生成它们）", o.CRDDir)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		_, err = c.Dynamic.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
		switch {
		case err == nil:
			fmt.Printf(l.Tr("  the CRD %s is installed already: left as it is\n", "  CRD %s 已经安装：保持原样\n"), crd.GetName())
		case apierrors.IsNotFound(err):
			annotations := crd.GetAnnotations()
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[InstalledBy] = o.Class
			crd.SetAnnotations(annotations)
			fmt.Printf(l.Tr("  installing the CRD %s\n", "  正在安装 CRD %s\n"), crd.GetName())
			if _, err := c.Dynamic.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
				return i18n.Errorf("installing the CRD %s: %w (the kubeconfig's user must be allowed to; cluster-admin is)",
					"安装 CRD %s 时出错：%w（kubeconfig 中的用户必须有这个权限；cluster-admin 有）", crd.GetName(), err)
			}
		default:
			return err
		}
		if err := waitEstablished(ctx, c, crd.GetName()); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, c *Cluster, name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := c.Dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err == nil && established(got) {
			return nil
		}
		if time.Now().After(deadline) {
			return i18n.Errorf("the CRD %s was not established within 30s", "CRD %s 在 30 秒内没有进入 Established 状态", name)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	return slices.ContainsFunc(conds, func(c any) bool {
		m, _ := c.(map[string]any)
		return m["type"] == "Established" && m["status"] == "True"
	})
}

// Teardown deletes the namespaces of the class (and with them everything
// in them), and the CRD if this class's setup installed it. It does not
// wait: the namespace controller empties a namespace before it goes
// (WaitGone).
func Teardown(ctx context.Context, l i18n.Lang, c *Cluster, class string) ([]string, error) {
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: ClassLabel + "=" + class})
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, ns := range list.Items {
		err := c.Kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return gone, err
		}
		gone = append(gone, ns.Name)
		fmt.Printf(l.Tr("  deleting the namespace %s\n", "  正在删除名字空间 %s\n"), ns.Name)
	}
	crds, err := c.Dynamic.Resource(crdResource).List(ctx, metav1.ListOptions{})
	if err != nil {
		return gone, err
	}
	for _, crd := range crds.Items {
		if crd.GetAnnotations()[InstalledBy] != class || !strings.HasSuffix(crd.GetName(), ".batch.cronlab.dev") {
			continue
		}
		if err := c.Dynamic.Resource(crdResource).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return gone, err
		}
		gone = append(gone, crd.GetName())
		fmt.Printf(l.Tr("  deleting the CRD %s (this class's setup installed it)\n", "  正在删除 CRD %s（它是这个班级的 setup 安装的）\n"), crd.GetName())
	}
	return gone, nil
}

// WaitGone waits until no namespace of the class is left, at most wait,
// and says how many still are.
func WaitGone(ctx context.Context, l i18n.Lang, c *Cluster, class string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: ClassLabel + "=" + class})
		if err != nil {
			return err
		}
		if len(list.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return i18n.Errorf("%d namespaces of the class are still being deleted after %v: kubectl get namespaces -l %s=%s shows them",
				"%d 个班级名字空间在 %v 之后仍在删除中：kubectl get namespaces -l %s=%s 可以查看", len(list.Items), wait, ClassLabel, class)
		}
		time.Sleep(time.Second)
	}
}
