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

// The kubeconfig an attendee gets: the instructor's cluster (its address
// and certificate authority, as the instructor's own kubeconfig has them),
// the attendee's token, and a context whose namespace is theirs, so that
// kubectl and make run act there without a -n.

import (
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
)

// ContextPrefix starts the name of a class kubeconfig's context:
// bin/lab doctor recognises a class kubeconfig by it.
const ContextPrefix = "cronlab-class-"

func writeKubeconfig(c *Cluster, class, name string, token issued, file string) error {
	ca := c.Config.CAData
	if len(ca) == 0 && c.Config.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(c.Config.CAFile); err != nil {
			return err
		}
	}
	cluster := ContextPrefix + class
	context := ContextPrefix + class + "-" + name
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[cluster] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: ca,
		InsecureSkipTLSVerify: c.Config.Insecure, TLSServerName: c.Config.ServerName}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token.value}
	cfg.Contexts[context] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: name, Namespace: Namespace(class, name)}
	cfg.CurrentContext = context
	if err := clientcmd.WriteToFile(*cfg, file); err != nil {
		return i18n.Errorf("writing %s: %w", "写入 %s 时出错：%w", file, err)
	}
	return os.Chmod(file, 0o600) // it holds a credential
}
