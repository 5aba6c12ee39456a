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
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// series is apiserver_request_total, by "verb|group|resource|subresource|code".
type series map[string]float64

// scrape reads the API server's request counters.
func scrape(ctx context.Context, kube kubernetes.Interface) (series, error) {
	raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's /metrics: %w", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	out := series{}
	family, ok := families["apiserver_request_total"]
	if !ok {
		return nil, fmt.Errorf("the API server's /metrics has no apiserver_request_total")
	}
	for _, m := range family.GetMetric() {
		l := map[string]string{}
		for _, p := range m.GetLabel() {
			l[p.GetName()] = p.GetValue()
		}
		key := strings.Join([]string{l["verb"], l["group"], l["resource"], l["subresource"], l["code"]}, "|")
		out[key] += m.GetCounter().GetValue()
	}
	return out, nil
}

// writes sums, between two scrapes, the writes a CronJob controller makes:
// Job creates and deletes, and CronJob (status) writes in its own API
// group. Events are left out: the Job controller writes core Events too.
// Conflicts are the 409 answers to any of them.
func writes(before, after series, ctl string) (map[string]float64, float64) {
	group := "batch.cronlab.dev"
	if ctl == "upstream" {
		group = "batch"
	}
	out := map[string]float64{}
	conflicts := 0.0
	for key, v := range after {
		delta := v - before[key]
		if delta <= 0 {
			continue
		}
		f := strings.Split(key, "|")
		verb, g, resource, sub, code := f[0], f[1], f[2], f[3], f[4]
		var kind string
		switch {
		case g == "batch" && resource == "jobs" && sub == "" && verb == "POST":
			kind = "job create"
		case g == "batch" && resource == "jobs" && sub == "" && verb == "DELETE":
			kind = "job delete"
		case g == group && resource == "cronjobs" && sub == "status" && isWrite(verb):
			kind = "cronjob status " + strings.ToLower(verb)
		case g == group && resource == "cronjobs" && sub == "" && isWrite(verb) && verb != "POST" && verb != "DELETE":
			kind = "cronjob " + strings.ToLower(verb)
		default:
			continue
		}
		if code == "409" {
			conflicts += delta
		}
		out[kind] += delta
	}
	return out, conflicts
}

func isWrite(verb string) bool {
	switch verb {
	case "POST", "PUT", "PATCH", "DELETE", "APPLY":
		return true
	}
	return false
}

// process is what is measured of a controller's process.
type process interface {
	cpuSeconds() float64
	peakRSSMiB() float64
}

// pidProcess reads /proc/<pid>.
type pidProcess int

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux this runs on.
const clockTicks = 100

func (p pidProcess) cpuSeconds() float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", int(p)))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after it are plain.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / clockTicks
}

func (p pidProcess) peakRSSMiB() float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", int(p)))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// findProcess finds the one process whose executable is named name.
func findProcess(name string) (int, error) {
	entries, err := filepath.Glob("/proc/[0-9]*/exe")
	if err != nil {
		return 0, err
	}
	var found []int
	for _, e := range entries {
		target, err := os.Readlink(e)
		if err != nil || filepath.Base(target) != name {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		found = append(found, pid)
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("want exactly one %s process (the local cluster's, `make cluster`), found %d", name, len(found))
	}
	return found[0], nil
}

func numCPU() int { return runtime.NumCPU() }
