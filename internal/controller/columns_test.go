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

package controller

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	batchv1 "cronlab.dev/cronlab/api/v1"
	"cronlab.dev/cronlab/test/say"
)

// kubectl get asks the API server for a Table, whose columns are the CRD's
// additionalPrinterColumns; this asks for the same Table, with a plain HTTP
// request that shows what kubectl asks for.
func getTable(ns string) *metav1.Table {
	GinkgoHelper()
	httpClient, err := rest.HTTPClientFor(cfg)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("an HTTP client for the test API server",
			"连接测试用 API 服务器的 HTTP 客户端"))
	path := fmt.Sprintf("%s/apis/%s/%s/namespaces/%s/cronjobs", strings.TrimSuffix(cfg.Host, "/"),
		batchv1.GroupVersion.Group, batchv1.GroupVersion.Version, ns)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("the request for the CronJobs as a Table, as kubectl get makes it",
			"以 Table 形式请求 CronJob，和 kubectl get 的请求一样"))
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred(),
		say.Both("asking the API server for the CronJobs as a Table",
			"向 API 服务器以 Table 形式请求 CronJob"))
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK),
		say.Both("the API server's answer to kubectl get's request: 200 OK",
			"API 服务器对 kubectl get 请求的回答：200 OK"))
	var table metav1.Table
	Expect(json.NewDecoder(resp.Body).Decode(&table)).To(Succeed(),
		say.Both("decoding the Table the API server sent",
			"解码 API 服务器发来的 Table"))
	return &table
}

var _ = Describe("kubectl get ccj", func() {
	It("tells a CronJob that cannot run from a healthy one, with the next run in -o wide", Label("lab-scheduling"), func() {
		h := newHarness()
		healthy := h.createCronJob("healthy", "*/5 * * * *", at(10, 0, 0))
		typo := h.createCronJob("typo", "0 0 30 2 *", at(10, 0, 0))
		nowhere := h.createCronJob("nowhere", "0 9 * * *", at(10, 0, 0), func(cj *batchv1.CronJob) {
			cj.Spec.TimeZone = ptr.To("Mars/Olympus_Mons")
		})
		for _, cj := range []*batchv1.CronJob{healthy, typo, nowhere} {
			h.mustReconcileAt(at(10, 1, 0), cj)
		}

		table := getTable(h.ns)
		var names []string
		wide := map[string]bool{}
		for _, c := range table.ColumnDefinitions {
			names = append(names, c.Name)
			wide[c.Name] = c.Priority > 0
		}
		Expect(names).To(Equal([]string{"Name", "Schedule", "Time Zone", "Suspend", "Active", "Last Schedule", "Ready", "Reason", "Message", "Age"}), say.Both("the columns of kubectl get ccj, in their order",
			"kubectl get ccj 的各列，按顺序"))
		Expect(wide).To(HaveKeyWithValue("Message", true), say.Both("only in -o wide",
			"只在 -o wide 中显示"))
		Expect(wide).To(HaveKeyWithValue("Reason", false), say.Both("Reason shows without -o wide",
			"不加 -o wide 也显示 Reason"))

		rows := map[string]string{}
		for _, row := range table.Rows {
			rows[fmt.Sprint(row.Cells[0])] = fmt.Sprintf("%v | %v | %v", row.Cells[6], row.Cells[7], row.Cells[8])
		}
		Expect(rows).To(Equal(map[string]string{
			"healthy": "True | Scheduling | next run at 2030-01-07T10:05:00Z",
			"typo":    `False | InvalidSchedule | schedule "0 0 30 2 *": never fires: February has no day 30`,
			"nowhere": `False | UnknownTimeZone | timeZone "Mars/Olympus_Mons": unknown time zone; use an IANA name such as "Etc/UTC", "Europe/Berlin" or "Asia/Shanghai"`,
		}), say.Both("each CronJob's Ready, Reason and Message: the next run, or why it cannot run",
			"每个 CronJob 的 Ready、Reason 和 Message：下一次运行，或者它无法运行的原因"))
	})
})
