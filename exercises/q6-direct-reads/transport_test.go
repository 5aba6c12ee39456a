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

package directreads

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"k8s.io/client-go/rest"

	"cronlab.dev/cronlab/test/lag"
	"cronlab.dev/cronlab/test/say"
)

// TestAWatchThatCannotConnectReturnsTheTransportsError: when the request
// never reaches the API server, there is no response and no body to hold
// back; the lag passes the transport's error on as it is, so that the
// informer's reflector sees why and retries. No API server needed: the
// transport under the lag fails every request.
func TestAWatchThatCannotConnectReturnsTheTransportsError(t *testing.T) {
	unreachable := errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	cfg := &rest.Config{Host: "https://cluster.example", Transport: failingTransport{unreachable}}
	lagging := lag.NewWatches()
	lagging.Pause("jobs")
	defer lagging.Resume("jobs")
	c, err := rest.HTTPClientFor(lagging.Config(cfg))
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{
		"https://cluster.example/apis/batch/v1/namespaces/team/jobs?watch=true",
		"https://cluster.example/apis/batch/v1/namespaces/team/jobs",
	} {
		err := get(c, url)
		var p panicked
		if errors.As(err, &p) {
			t.Error(say.Both("GET %s through the lag, with a transport that cannot connect: RoundTrip panicked (%v): when the transport fails there is no response, so no body to wrap; return its error first",
				"经过滞后层（lag）、用一个无法连接的 transport GET %s："+
					"RoundTrip 发生了 panic（%v）：transport 失败时没有响应，"+
					"也就没有可包装的 body；先返回它的错误", url, p.value))
			continue
		}
		if !errors.Is(err, unreachable) {
			t.Error(say.Both("GET %s through the lag, with a transport that cannot connect: the error %v, want the transport's own (%v) passed on as it is",
				"经过滞后层（lag）、用一个无法连接的 transport GET %s：错误为 %v，"+
					"应为 transport 自己的错误（%v），原样传递", url, err, unreachable))
		}
	}
}

// get is c.Get(url), with a panic turned into an error that says so.
func get(c *http.Client, url string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked{v}
		}
	}()
	resp, err := c.Get(url)
	if resp != nil {
		_ = resp.Body.Close()
	}
	return err
}

type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprint("panic: ", p.value) }

// failingTransport fails every request, as a transport does when the API
// server cannot be reached.
type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }
