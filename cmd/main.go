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

// The manager: it connects to the cluster, starts the shared informer cache,
// serves metrics and health probes, and runs the CronJob controller. This
// file only wires things together; the logic lives in internal/.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	// Authentication plugins for kubeconfig files (exec, OIDC, ...).
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	batchv1 "cronlab.dev/cronlab/api/v1"
	batchv2 "cronlab.dev/cronlab/api/v2"
	"cronlab.dev/cronlab/internal/controller"
	"cronlab.dev/cronlab/internal/leader"
	"cronlab.dev/cronlab/internal/ownwrites"
	webhookv1 "cronlab.dev/cronlab/internal/webhook/v1"
)

// leaderElectionID names the Lease that the managers of one cluster compete for.
const leaderElectionID = "cronlab.batch.cronlab.dev"

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

// lab:begin scheme

// init fills the scheme, which maps Go types to API kinds: the built-in ones
// (Job, Event, ...) and ours (CronJob). Clients, caches and webhooks of the
// manager use it to know what a kind's Go type is, and back.
func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(batchv1.AddToScheme(scheme))
}

// lab:end

// init adds v2 of the API: with v1 as its hub, the webhook server then serves
// /convert (internal/webhook/v1), which the API server calls when a client
// asks for the version that is not stored. Without webhooks v2 is not served
// at all (config/with-webhooks serves it), and the controller, which reads
// and writes v1 only, never needs it.
func init() {
	utilruntime.Must(batchv2.AddToScheme(scheme))
}

func main() {
	var metricsAddr, probeAddr, leaderElectionNamespace, webhookCertPath, namespaceFlag, traceFile string
	var secureMetrics, enableLeaderElection, enableHTTP2 bool
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080",
		"The address the metrics endpoint binds to, such as :8443 for HTTPS or :8080 for HTTP. Use 0 to turn metrics off.")
	flag.BoolVar(&secureMetrics, "metrics-secure", false,
		"Serve metrics over HTTPS, and only to clients that the API server authenticates and authorizes. The kustomize and Helm deployments turn this on.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the liveness and readiness probes bind to.")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false,
		"Elect a leader, so that of several managers only one runs the controller at a time.")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "",
		"The namespace of the leader election Lease. Defaults to the watched namespace when --namespace (or WATCH_NAMESPACE) is set; "+
			"otherwise, in a pod, to the pod's namespace, and outside a cluster (make run) it must be set.")
	flag.StringVar(&namespaceFlag, "namespace", "",
		"The only namespace whose CronJobs the manager reconciles; empty: every namespace. "+
			"Defaults to the WATCH_NAMESPACE environment variable; the flag wins when both are set.")
	flag.StringVar(&traceFile, "trace", "",
		"Record a trace of the reconcile loop (the API server, the cache, each reconcile's reads and writes) into this file, "+
			"for `bin/lab trace FILE` to draw; for a lesson with a few CronJobs (make run TRACE=file).")
	flag.BoolVar(&enableHTTP2, "enable-http2", false,
		"Serve metrics over HTTP/2 too. Off by default because of the HTTP/2 Stream Cancellation and Rapid Reset CVEs.")
	flag.StringVar(&webhookCertPath, "webhook-cert-path", "",
		"The directory holding the webhook server's tls.crt and tls.key. Default: "+defaultCertDir())
	// The tunables for load, which a lesson leaves alone (tuning.go).
	tune := tuningFlags(flag.CommandLine)
	opts := zap.Options{Development: true}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	if err := tune.check(); err != nil {
		setupLog.Error(err, "a tunable is out of range")
		os.Exit(1)
	}

	namespace := watchNamespace(namespaceFlag, os.Getenv)
	if namespace == "" {
		setupLog.Info("watching every namespace")
	} else {
		setupLog.Info("watching one namespace only", "namespace", namespace)
	}
	// A scoped manager may be granted nothing outside its namespace (a Role,
	// not a ClusterRole: config/namespaced), so its Lease goes there too.
	if leaderElectionNamespace == "" {
		leaderElectionNamespace = namespace
	}

	var tlsOpts []func(*tls.Config)
	if !enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOptions := metricsserver.Options{BindAddress: metricsAddr, SecureServing: secureMetrics, TLSOpts: tlsOpts}
	if secureMetrics {
		// Ask the API server who the caller is and whether it may read
		// /metrics (see config/rbac/metrics_reader_role.yaml).
		metricsOptions.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	if webhookCertPath == "" {
		webhookCertPath = defaultCertDir()
	}
	enableWebhooks, err := webhooksWanted(os.Getenv("ENABLE_WEBHOOKS"), webhookCertPath)
	if err != nil {
		setupLog.Error(err, "webhooks are on but cannot be served: set ENABLE_WEBHOOKS=false to run without them, "+
			"run `make run-webhooks` for local certificates, or deploy with cert-manager (config/certmanager)")
		os.Exit(1)
	}

	cfg := ctrl.GetConfigOrDie()
	tune.client(cfg)

	// With leader election, the fence keeps this manager from writing once
	// its Lease may have passed to another (internal/leader): a manager that
	// was frozen and resumes believes for a moment that it still leads.
	var fence *leader.Fence
	var leaseLock resourcelock.Interface
	if enableLeaderElection {
		lock, err := leader.NewLeaseLock(cfg, leaderElectionNamespace, leaderElectionID)
		if err != nil {
			setupLog.Error(err, "unable to set up leader election")
			os.Exit(1)
		}
		fence = leader.NewFence()
		leaseLock = fence.Lock(lock)
	}

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                              scheme,
		Metrics:                             metricsOptions,
		HealthProbeBindAddress:              probeAddr,
		PprofBindAddress:                    tune.pprofAddr,
		WebhookServer:                       webhook.NewServer(webhook.Options{CertDir: webhookCertPath, TLSOpts: tlsOpts}),
		LeaderElection:                      enableLeaderElection,
		LeaderElectionResourceLockInterface: leaseLock,
		LeaseDuration:                       ptr.To(leader.LeaseDuration),
		RenewDeadline:                       ptr.To(leader.RenewDeadline),
		RetryPeriod:                         ptr.To(leader.RetryPeriod),
		// Only cronlab's own Jobs, without managedFields, in one namespace
		// when asked: see cacheOptions.
		Cache: cacheOptions(namespace),
	})
	if err != nil {
		setupLog.Error(err, "unable to create the manager: is a cluster reachable? (kubectl cluster-info)")
		os.Exit(1)
	}

	ctx := ctrl.SetupSignalHandler()
	// Not mgr.GetEventRecorder: the same recorder, but one that writes
	// only --event-writers Events at a time (tuning.go).
	recorder, stopEvents, err := tune.eventRecorder(mgr)
	if err != nil {
		setupLog.Error(err, "unable to set up the Event recorder")
		os.Exit(1)
	}
	// The Reconciler remembers the writes that pass through this client
	// (internal/ownwrites). Stage 15, the stale cache, is where it needs
	// them and says why.
	ownWrites := ownwrites.New(nil)
	reconciler := &controller.CronJobReconciler{
		Client:    ownWrites.Client(fence.Client(mgr.GetClient())),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  recorder,
		Workers:   tune.workers,
		Guards:    controller.Guards{OwnWrites: ownWrites},
	}
	if traceFile != "" {
		rec, err := traced(ctx, mgr, reconciler, traceFile, namespace)
		if err != nil {
			setupLog.Error(err, "unable to record a trace", "file", traceFile)
			os.Exit(1)
		}
		defer func() {
			if err := rec.Close(); err != nil {
				setupLog.Error(err, "the trace is incomplete", "file", traceFile)
			}
		}()
		setupLog.Info("recording a trace of the reconcile loop: bin/lab trace "+traceFile+" draws it", "file", traceFile)
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		setupLog.Error(err, "unable to create controller", "controller", "CronJob")
		os.Exit(1)
	}

	if enableWebhooks {
		if err := webhookv1.SetupCronJobWebhookWithManager(mgr); err != nil {
			setupLog.Error(err, "unable to create webhook", "webhook", "CronJob")
			os.Exit(1)
		}
	} else {
		setupLog.Info("webhooks are off (ENABLE_WEBHOOKS=false): the CRD's own rules still validate CronJobs")
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up ready check")
		os.Exit(1)
	}

	setupLog.Info("starting manager")
	if err := mgr.Start(ctx); err != nil {
		setupLog.Error(err, "problem running manager")
		// os.Exit skips the trace's deferred Close: nothing is lost, each
		// line of a trace is written as it happens.
		os.Exit(1)
	}
	// Ctrl-C (or SIGTERM from the kubelet) ends here, after the workers
	// finished their reconciles: their last Events are written before the
	// one line that says it was a clean stop.
	stopEvents()
	setupLog.Info("manager stopped: interrupted, and every worker finished its reconcile")
}

// watchNamespace is the one namespace the manager reconciles in, or "" for
// all of them. Many classes share one cluster, an attendee per namespace
// (docs/class.md, "A manager scoped to one namespace"): unscoped, every
// attendee's `make run` would reconcile everyone's CronJobs. WATCH_NAMESPACE
// is how operators are commonly told, and how a Deployment passes its own
// namespace (downward API: config/namespaced, the chart's `namespaced`);
// the flag is for the command line, and wins over an exported variable.
func watchNamespace(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	return getenv("WATCH_NAMESPACE")
}

// cacheOptions is the controller's cache (controller.CacheOptions), limited
// to namespace when one is given. Every informer then lists and watches
// that namespace only, so the manager needs no permission elsewhere, and a
// read of another namespace from the cache fails instead of finding nothing.
func cacheOptions(namespace string) cache.Options {
	opts := controller.CacheOptions()
	if namespace != "" {
		opts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	return opts
}

// lab:begin webhook-switch

// webhooksWanted decides whether the manager serves the webhooks
// (discussion question 1). They are on unless ENABLE_WEBHOOKS is "false",
// which `make run` sets: the webhook server needs a certificate that the
// API server trusts, which a cluster gets from cert-manager and a laptop
// from `make run-webhooks`. When they are on without a certificate, it is
// an error now, not a failed TLS handshake on the first admission request.
//
// Off is enough to run without them: controller-runtime starts its webhook
// server only once something registers a webhook on it.
func webhooksWanted(enableEnv, certDir string) (bool, error) {
	if enableEnv == "false" {
		return false, nil
	}
	if err := checkWebhookCerts(certDir); err != nil {
		return true, err
	}
	return true, nil
}

// lab:end

// defaultCertDir is where controller-runtime's webhook server looks for
// certificates when no directory is given.
func defaultCertDir() string {
	return filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
}

func checkWebhookCerts(dir string) error {
	for _, f := range []string{"tls.crt", "tls.key"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("no webhook certificate %s in %s", f, dir)
		}
	}
	return nil
}
