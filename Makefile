# cronlab's Makefile follows the one `kubebuilder init` writes (go/v4 layout),
# with two additions that a workshop needs: test binaries that come from the Go
# module proxy when downloads are blocked, and a check that generated files are
# up to date. `make help` lists every target.

# Image URL to use all building/pushing image targets.
IMG ?= controller:latest

# The Kubernetes release the lab targets. envtest binaries of any 1.36 patch
# release are accepted; when none can be downloaded, KUBE_VERSION is built.
ENVTEST_K8S_VERSION ?= 1.36
KUBE_VERSION ?= v1.36.3

# Where envtest binaries live: setup-envtest's per-user store, outside the
# clone, so every fresh clone (and CI run) on this machine reuses them.
ENVTEST_DIR ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/kubebuilder-envtest
# Where binaries built from the Go module proxy are kept, also per user.
KUBE_BIN_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/cronlab/kubernetes-$(KUBE_VERSION)

# Get the currently used golang install path (in GOPATH/bin, unless GOBIN is set).
ifeq (,$(shell go env GOBIN))
GOBIN=$(shell go env GOPATH)/bin
else
GOBIN=$(shell go env GOBIN)
endif

# CONTAINER_TOOL defines the container tool to be used for building images.
CONTAINER_TOOL ?= docker

# Setting SHELL to bash allows bash commands to be executed by recipes.
# Options are set to exit when a recipe line exits non-zero or a piped command fails.
# -e is in SHELL itself, not only in .SHELLFLAGS: make 3.81, the one of stock
# macOS, ignores .SHELLFLAGS (docs/laptops.md).
SHELL = /usr/bin/env bash -e -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: build

##@ General

# The help target prints out all targets with their descriptions organized
# beneath their categories. The categories are represented by '##@' and the
# target descriptions by '##'.
.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate CRD, RBAC and webhook YAML from the Go markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd:generateEmbeddedObjectMeta=true webhook paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods (zz_generated.deepcopy.go).
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: verify-generated
verify-generated: manifests generate ## Fail when generated files differ from what the Go source says.
	@if [ -n "$$(git status --porcelain -- api config internal cmd)" ]; then \
		echo "Generated files are out of date. Run 'make manifests generate' and commit the result:"; \
		git status --porcelain -- api config internal cmd; git --no-pager diff --stat; exit 1; \
	fi

.PHONY: verify-fmt
verify-fmt: ## Fail when a Go file is not gofmt-formatted (files with build tags included).
	@files=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$files" ]; then \
		echo "Not gofmt-formatted (run gofmt -w on them):"; echo "$$files"; exit 1; fi

.PHONY: fmt
fmt: ## Run go fmt against code.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet against code.
	go vet ./...

.PHONY: test
# How many test packages run at once. Most of an envtest package's time is
# spent waiting on its API server, not computing, so go test's default of one
# per CPU leaves two cores half idle: four at once took make test's tests from
# 71 s to 51 s on two cores (docs/performance.md). More than that did not help.
TEST_PARALLEL ?= $(shell n=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2); if [ "$$n" -lt 4 ]; then echo 4; else echo "$$n"; fi)

test: manifests generate fmt vet setup-envtest helm kustomize ## Run unit and envtest integration tests (and the chart stage, which runs helm).
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" \
		go test -p $(TEST_PARALLEL) $$(go list ./... | grep -v /test/e2e) -coverprofile cover.out

TRACE_PACKAGES = ./exercises/q4-level-based ./exercises/q6-direct-reads ./exercises/q5-next-reconcile ./exercises/stale-cache

.PHONY: trace-pictures
trace-pictures: setup-envtest ## Draw the answers' pictures (docs/answers/img/*.svg) again from traces that the tests of stages 12 to 15 record now.
	rm -rf $(LOCALBIN)/trace-pictures
	CRONLAB_TRACE_DIR=$(LOCALBIN)/trace-pictures KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" \
		go test -count=1 $(TRACE_PACKAGES)
	go run ./cmd/lab/hack/tracepictures -write -traces $(LOCALBIN)/trace-pictures

.PHONY: verify-traces
verify-traces: ## After make test: each answer's picture is the drawing of its committed trace, and the trace the same test just recorded does what it shows.
	go run ./cmd/lab/hack/tracepictures -check -traces $(LOCALBIN)/lab-state/traces

.PHONY: test-race
test-race: setup-envtest ## The packages that run on several goroutines, with the race detector; writes docs/bench/race.md (long: not in CI).
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" hack/race-report.sh

.PHONY: test-board-browser
test-board-browser: ## The class board in headless Chromium: 30 attendees replayed, matrix, stuck flags, a raised hand, a live update within a second (needs chromium: apt-get install chromium).
	go test -tags browser -count=1 -run TestBoardInABrowser -v ./cmd/lab/internal/board/

.PHONY: board-screenshot
board-screenshot: ## The same test, writing the board's page as docs/img/board.png (1600×1000).
	mkdir -p docs/img
	BOARD_SCREENSHOT=$(CURDIR)/docs/img/board.png go test -tags browser -count=1 -run TestBoardInABrowser -v ./cmd/lab/internal/board/

.PHONY: test-recipes
test-recipes: setup-envtest controller-gen ## docs/maintaining.md's recipe 4 on a scratch clone of HEAD: a stage added between scheduling and envtest touches its folder and the list only, passes lab dev verify, keeps every other stage's branch, hints and mutation row (about 2 minutes; CI runs it).
	go test -tags recipes -count=1 -run TestTheRecipeAddsAStageBetweenTwo -v ./cmd/lab/internal/verify/

.PHONY: test-trace-browser
test-trace-browser: ## The page of lab trace in headless Chromium: two real traces in both languages opened from the disk, lanes, stale reads and their lines, coalesced causes, nothing from the network (needs chromium; TRACE_SCREENSHOT=dir writes PNGs).
	go test -tags browser -count=1 -run TestTracePageInABrowser -v ./cmd/lab/internal/traceview/

##@ Local cluster

CLUSTER_ENV = KWOKCTL=$(KWOKCTL) KWOK=$(KWOK) KWOK_VERSION=$(KWOK_VERSION) KUBE_VERSION=$(KUBE_VERSION) KUBE_BIN_CACHE=$(KUBE_BIN_CACHE)

.PHONY: cluster
cluster: kwok ## Start a local Kubernetes 1.36 cluster without Docker (kwok; binaries downloaded or built once).
	@$(CLUSTER_ENV) hack/local-cluster.sh up

.PHONY: cluster-down
cluster-down: kwok ## Delete the local cluster, and stop the processes kwokctl recorded for it (only those).
	@$(CLUSTER_ENV) hack/local-cluster.sh down

.PHONY: test-cluster-isolation
test-cluster-isolation: kwok ## With the local cluster up: a second one under another HOME; each cluster-down leaves the other serving (ends with this one down).
	@KUBE_BIN_CACHE=$(KUBE_BIN_CACHE) KUBECTL=$(KUBECTL) hack/test-cluster-isolation.sh

# kind needs Docker. kind is pinned like every other tool (installed into bin/
# from the Go module proxy; set KIND to use another), and its node image by
# digest: kind supports a node image only with the kind release that built it,
# and a tag alone may name an image built for another release. KIND_NODE_IMAGE
# is the Kubernetes 1.36 image that the release notes of KIND_VERSION list
# (https://github.com/kubernetes-sigs/kind/releases/tag/v0.33.0); docs/clusters.md
# says how to move both to a later release.
KIND_VERSION ?= v0.33.0
KIND_NODE_IMAGE ?= kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed
KIND_PINNED = $(LOCALBIN)/kind
KIND ?= $(KIND_PINNED)
KIND_CLUSTER ?= cronlab
# The pinned kind is installed only when it is the one used.
KIND_TOOL = $(if $(filter $(KIND_PINNED),$(KIND)),$(KIND_PINNED))

.PHONY: kind-cluster
kind-cluster: ## Start a kind cluster with the pinned kind and node image (needs Docker).
	@hack/need-docker.sh $(CONTAINER_TOOL) "make kind-cluster"
	@$(MAKE) --no-print-directory $(KIND_TOOL) kind-create

.PHONY: kind-create
kind-create:
	$(KIND) get clusters | grep -qx $(KIND_CLUSTER) || $(KIND) create cluster --name $(KIND_CLUSTER) --image $(KIND_NODE_IMAGE)
	$(KUBECTL) config use-context kind-$(KIND_CLUSTER)

.PHONY: kind-load
kind-load: ## Build the operator's image (IMG) and load it into the kind cluster, for make deploy or the chart.
	@hack/need-docker.sh $(CONTAINER_TOOL) "make kind-load"
	@$(MAKE) --no-print-directory $(KIND_TOOL) docker-build
	$(KIND) load docker-image $(IMG) --name $(KIND_CLUSTER)

.PHONY: kind-down
kind-down: ## Delete the kind cluster.
	@hack/need-docker.sh $(CONTAINER_TOOL) "make kind-down"
	@$(MAKE) --no-print-directory $(KIND_TOOL) kind-delete

.PHONY: kind-delete
kind-delete:
	$(KIND) delete cluster --name $(KIND_CLUSTER)

.PHONY: verify-kind
verify-kind: kind ## The pinned kind builds and runs, and KIND_NODE_IMAGE names its image by digest.
	@$(KIND_PINNED) version | grep -q "kind $(KIND_VERSION) " || { echo "bin/kind is not kind $(KIND_VERSION): $$($(KIND_PINNED) version)"; exit 1; }
	@echo "$(KIND_NODE_IMAGE)" | grep -Eq '^kindest/node:v1\.[0-9]+\.[0-9]+@sha256:[0-9a-f]{64}$$' || { echo "KIND_NODE_IMAGE must be kindest/node:vX.Y.Z@sha256:<digest>, is $(KIND_NODE_IMAGE)"; exit 1; }
	@echo "kind: $$($(KIND_PINNED) version); node image: $(KIND_NODE_IMAGE)"

.PHONY: demo
demo: cluster install build ## Start the local cluster, run the operator and show a CronJob at work (Ctrl-C stops).
	@KUBECTL=$(KUBECTL) hack/demo.sh

.PHONY: test-e2e
test-e2e: manifests generate fmt vet install ## Run the end-to-end tests against the current cluster (make cluster first).
	@$(MAKE) --no-print-directory test-e2e-built

# test-e2e-built is test-e2e without generating: .ci/run runs it beside
# builds, which must not see generated files being written again under them.
.PHONY: test-e2e-built
test-e2e-built:
	@$(KUBECTL) cluster-info >/dev/null 2>&1 || { echo "No cluster reachable: start one with 'make cluster' (no Docker needed) or 'make kind-cluster'."; exit 1; }
	go test -tags e2e ./test/e2e/ -v -ginkgo.v -timeout 30m

##@ Benchmark

BENCH_N ?= 100,500
BENCH_MINUTES ?= 3
BENCH_MANAGER_ARGS ?=
BENCH_ALT_MANAGER_ARGS ?=
BENCH_CONTROLLERS ?= upstream,cronlab,floor
BENCH_FOREIGN_JOBS ?= 0
BENCH_PROFILE ?= false
BENCH_FINISH_JOBS ?= false
BENCH_REPEAT ?= 1

.PHONY: bench
bench: build install ## Upstream's CronJob controller vs cronlab's on the current cluster (make cluster first); BENCH_N, BENCH_MINUTES, BENCH_CONTROLLERS, BENCH_FOREIGN_JOBS, BENCH_MANAGER_ARGS, BENCH_ALT_MANAGER_ARGS (the manager measured as cronlab-alt), BENCH_PROFILE=true (CPU profiles), BENCH_FINISH_JOBS=true (Jobs that end, recorded and deleted), BENCH_REPEAT=K (each controller K times, in turn; median ratios).
	@$(KUBECTL) cluster-info >/dev/null 2>&1 || { echo "No cluster reachable: start one with 'make cluster' (no Docker needed)."; exit 1; }
	go run ./hack/bench -n $(BENCH_N) -minutes $(BENCH_MINUTES) -controllers $(BENCH_CONTROLLERS) -foreign-jobs $(BENCH_FOREIGN_JOBS) \
		-profile=$(BENCH_PROFILE) -finish-jobs=$(BENCH_FINISH_JOBS) -repeat $(BENCH_REPEAT) -manager bin/manager -out bench-results -manager-args "$(BENCH_MANAGER_ARGS)" -alt-manager-args "$(BENCH_ALT_MANAGER_ARGS)"
	@$(MAKE) bench-plots BENCH_PLOTS_IN=bench-results/results.json || \
		echo "The results are kept, but their figures were not drawn (above): make bench-plots draws them again."

# hack/benchplot is a Go module of its own: gonum/plot is for whoever runs the
# bench or draws its figures, not a download for every attendee's make test.
BENCH_PLOTS_IN ?= bench-results/results.json
BENCH_PLOTS_PREFIX ?=
BENCH_PLOTS_FIGURES ?= skew,against-n
.PHONY: bench-plots
bench-plots: ## Draw the SVG figures of a bench run next to its results.json (BENCH_PLOTS_IN, BENCH_PLOTS_PREFIX, BENCH_PLOTS_FIGURES); no cluster needed.
	cd hack/benchplot && go run . -in "$(abspath $(BENCH_PLOTS_IN))" -prefix "$(BENCH_PLOTS_PREFIX)" -figures "$(BENCH_PLOTS_FIGURES)"

.PHONY: test-benchplot
test-benchplot: ## The tests of hack/benchplot (a module of its own, so make test does not run them).
	cd hack/benchplot && go vet ./... && go test -count=1 ./...

##@ Lab

.PHONY: lab
lab: ## Build the lab tool into bin/lab (bin/lab list, start, check, solution, branches, doctor, verify).
	go build -o bin/lab ./cmd/lab

BENCH_LAB_ARGS ?=

.PHONY: migrate-storage
migrate-storage: ## Rewrite every CronJob in the CRD's storage version and trim status.storedVersions (docs/answers/api-evolution.md).
	go run ./hack/migrate-storage

CHAOS_ARGS ?=
.PHONY: chaos
chaos: build install ## Faults at the top of a minute on the local cluster (make cluster first): no run duplicated or lost (docs/reliability.md); CHAOS_ARGS: -n, -faults, -after, -together.
	@$(KUBECTL) cluster-info >/dev/null 2>&1 || { echo "No cluster reachable: start one with 'make cluster' (no Docker needed)."; exit 1; }
	go run ./hack/chaos -manager bin/manager -out bin/chaos $(CHAOS_ARGS)

.PHONY: class-cluster
class-cluster: build lab install ## A class on one cluster (make cluster first): 30 attendees' scoped managers, a */1 CronJob each, for 3 minutes; isolation checks; writes docs/bench/class-cluster.md (long).
	@$(KUBECTL) cluster-info >/dev/null 2>&1 || { echo "No cluster reachable: start one with 'make cluster' (no Docker needed)."; exit 1; }
	go run ./cmd/lab/hack/classrun -manager bin/manager -lab bin/lab -kubectl $(KUBECTL) -attendees 30 -for 3m -out docs/bench/class-cluster.md

# CI's short class: what make class-cluster-ci and make cluster-ci run.
CLASSRUN_CI = go run ./cmd/lab/hack/classrun -manager bin/manager -lab bin/lab -kubectl $(KUBECTL) -attendees 3 -for 2m

.PHONY: class-cluster-ci
class-cluster-ci: build lab install ## What CI runs: the isolation checks and 3 attendees for 2 minutes; fails on a refusal that did not happen, a run missed or started twice, or a foreign Job.
	@$(KUBECTL) cluster-info >/dev/null 2>&1 || { echo "No cluster reachable: start one with 'make cluster' (no Docker needed)."; exit 1; }
	$(CLASSRUN_CI)

# Both wait on the clock far more than they compute (the top of a minute, a
# minute of calm, minutes of watching), and each keeps to namespaces of its
# own with managers scoped to them, so CI runs them side by side: about the
# time of the longer one instead of the sum (docs/reliability.md).
CHAOS_CI_ARGS = -n 30 -every 4 -foreign 6 -faults kill,freeze -after 40s -together -out bin/chaos-ci
.PHONY: cluster-ci
cluster-ci: build lab install ## What CI runs on the local cluster at once: make class-cluster-ci's class and make chaos's two faults (CHAOS_CI_ARGS), side by side; each one's output follows when both have ended.
	@$(MAKE) --no-print-directory cluster-ci-built

# cluster-ci-built is cluster-ci without building: .ci/run builds first and
# then runs it beside lab verify, which must not see generated files being
# written again under it.
.PHONY: cluster-ci-built
cluster-ci-built:
	@$(KUBECTL) cluster-info >/dev/null 2>&1 || { echo "No cluster reachable: start one with 'make cluster' (no Docker needed)."; exit 1; }
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	echo "the class (3 attendees for 2 minutes) and the faults ($(CHAOS_CI_ARGS)) run side by side; their outputs follow"; \
	$(CLASSRUN_CI) > "$$out/class.log" 2>&1 & class=$$!; \
	chaos_rc=0; go run ./hack/chaos -manager bin/manager $(CHAOS_CI_ARGS) > "$$out/chaos.log" 2>&1 || chaos_rc=$$?; \
	class_rc=0; wait $$class || class_rc=$$?; \
	echo "--- a class on one cluster (make class-cluster-ci): exit status $$class_rc"; cat "$$out/class.log"; \
	echo "--- faults at the top of a minute (make chaos CHAOS_ARGS='$(CHAOS_CI_ARGS)'): exit status $$chaos_rc"; cat "$$out/chaos.log"; \
	[ $$class_rc = 0 ] && [ $$chaos_rc = 0 ]

.PHONY: bench-lab
bench-lab: setup-envtest ## Time `bin/lab check` after a one-line edit, with and without the shared API server, in a clone of HEAD (BENCH_LAB_ARGS: -stages, -runs, -make-test).
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" go run ./cmd/lab/hack/bench $(BENCH_LAB_ARGS)

.PHONY: board-load
board-load: lab ## The class board under load: 200 attendees checking every 5 s for 5 min, the board SIGKILLed halfway and restarted; writes docs/bench/board-load.md (long).
	go run ./cmd/lab/hack/boardload -lab bin/lab -attendees 200 -every 5s -for 5m -out docs/bench/board-load.md

.PHONY: board-load-ci
board-load-ci: lab ## What CI runs: 30 attendees every 2 s for 40 s, the board SIGKILLed at 20 s; fails on a lost or doubly counted result.
	go run ./cmd/lab/hack/boardload -lab bin/lab -attendees 30 -every 2s -for 40s -kill-at 20s

.PHONY: mutants
mutants: lab ## The mistakes nobody listed: each stage's mutants, generic and Kubernetes' (or MUTANTS_STAGES="04 06"), checked; writes docs/mutation.md and the kill matrix docs/mutation-kills.json. Long, but after a change of specs alone a row checks only what it can move.
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" bin/lab dev mutants $(MUTANTS_STAGES)

.PHONY: sync
sync: lab setup-envtest ## After a change to the lab, committed: the generated files, translations, two languages, lab dev verify and the mutation rows it reaches, the answers' pictures; then what is left for a person (docs/maintaining.md).
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" bin/lab dev sync

.PHONY: mutants-guard
mutants-guard: lab ## What CI runs: the rows of docs/mutation.md whose stage or package changed since, checked again on a sample; fails when a score dropped. MUTANTS_GUARD_ARGS: --sample, --budget.
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" bin/lab dev mutants --guard $(MUTANTS_GUARD_ARGS)

##@ A class without internet

KIT_DIR ?= dist/class-kit
KIT_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
# The tools the Makefile installs with go install: their modules go into the kit.
KIT_TOOLS = sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION) sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION) \
	sigs.k8s.io/controller-runtime/tools/setup-envtest@$(ENVTEST_VERSION) helm.sh/helm/v3/cmd/helm@$(HELM_VERSION) \
	sigs.k8s.io/kwok/cmd/kwokctl@$(KWOK_VERSION) sigs.k8s.io/kwok/cmd/kwok@$(KWOK_VERSION) sigs.k8s.io/kind@$(KIND_VERSION)

.PHONY: class-kit
class-kit: ## The class kit for a room without internet: Go modules and Kubernetes binaries for KIT_PLATFORMS, in KIT_DIR (long; docs/instructor-guide.md).
	hack/class-kit.sh "$(KIT_DIR)" "$(KUBE_VERSION)" "$(KIT_PLATFORMS)" $(KIT_TOOLS)

.PHONY: class-kit-check
class-kit-check: ## CI: a kit for this machine, then a fresh clone set up from it alone and stage 01 checked; prints times and the kit's size.
	hack/class-kit-check.sh "$(KUBE_VERSION)" $(KIT_TOOLS)

.PHONY: lab-verify
lab-verify: lab ## For every stage: the starter compiles and vets, its tests fail, the reference passes them.
	KUBEBUILDER_ASSETS="$$(cat $(LOCALBIN)/envtest-assets-path)" bin/lab dev verify $(LAB_VERIFY_ARGS)

##@ Build

# The laptops attendees bring (docs/laptops.md): CI has no Mac and no Windows,
# so it cross-compiles every binary and test binary for them.
CROSS_PLATFORMS ?= darwin/arm64 darwin/amd64 windows/amd64

.PHONY: cross-build
# go test -exec true builds and links each package's test binary, then "runs"
# it with true(1), which ignores it: the test binaries of every package at
# once, which go test -c cannot do for two packages of the same name (v1).
# -ldflags=-s -w: every binary is still linked (each symbol resolved), only
# without the symbol table and DWARF, which nobody reads here: windows/amd64
# warm, 75.6 s of CPU instead of 80.5 (2 runs each, 2026-11-27).
cross-build: ## Build every binary and test binary (e2e included) for macOS (arm64, amd64) and Windows.
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	for p in $(CROSS_PLATFORMS); do \
		start=$$(date +%s); \
		GOOS=$${p%/*} GOARCH=$${p#*/} go build -ldflags='-s -w' -o "$$out/" ./...; \
		GOOS=$${p%/*} GOARCH=$${p#*/} go test -ldflags='-s -w' -tags e2e -exec true ./... > "$$out/test.log" 2>&1 || \
			{ cat "$$out/test.log"; echo "[cross-build] $$p: a test binary does not build"; exit 1; }; \
		echo "[cross-build] $$p: every binary and test binary built in $$(( $$(date +%s) - start ))s"; \
		rm -rf "$$out"/*; \
	done

.PHONY: build
build: manifests generate fmt vet ## Build manager binary.
	go build -o bin/manager ./cmd

# run and run-webhooks start the built manager, not `go run`: Ctrl-C reaches
# every process of the terminal, and go run passes it on to the manager a
# second time, which controller-runtime takes for "stop now" (exit 1). Once,
# the manager shuts down cleanly.
# NAMESPACE: reconcile the CronJobs of that namespace only, as each attendee
# does on a cluster that a class shares (docs/class.md).
NAMESPACE ?=

.PHONY: run
run: build ## Run the manager on this machine against the current kubeconfig (webhooks off); NAMESPACE=<ns> watches that namespace only; TRACE=<file> records a trace for bin/lab trace.
	ENABLE_WEBHOOKS=$${ENABLE_WEBHOOKS:-false} bin/manager $(if $(NAMESPACE),--namespace $(NAMESPACE)) $(if $(TRACE),--trace $(TRACE))

# The API server must reach the manager's webhook server: on the local
# cluster (make cluster) that is 127.0.0.1; for kind use the gateway of its
# Docker network: docker network inspect kind -f '{{(index .IPAM.Config 0).Gateway}}'
WEBHOOK_HOST ?= 127.0.0.1

.PHONY: run-webhooks
run-webhooks: build ## Run the manager here with webhooks on, and v2 of the API served through its conversion webhook (local certificates; all undone on exit).
	go run ./hack/webhook-local --host $(WEBHOOK_HOST) --cert-dir bin/webhook-certs \
		--serve-v2 bin/webhook-local-serve-v2.json --unserve-v2 bin/webhook-local-unserve-v2.json > bin/webhook-local.yaml
	$(KUBECTL) apply -f bin/webhook-local.yaml
	@$(KUBECTL) patch crd cronjobs.batch.cronlab.dev --type=json --patch-file bin/webhook-local-serve-v2.json || \
		{ echo "The CRD in the cluster has no v2 to serve: run 'make install' first (it installs this checkout's CRD)."; \
		  $(KUBECTL) delete --ignore-not-found -f bin/webhook-local.yaml; exit 1; }
	@echo "Webhook configurations and the CRD's conversion point at https://$(WEBHOOK_HOST):9443; v2 is served. All of it is undone when the manager stops."
	trap '$(KUBECTL) delete --ignore-not-found -f bin/webhook-local.yaml; $(KUBECTL) patch crd cronjobs.batch.cronlab.dev --type=json --patch-file bin/webhook-local-unserve-v2.json' EXIT; \
		ENABLE_WEBHOOKS=true bin/manager --webhook-cert-path=bin/webhook-certs

# If you wish to build the manager image targeting other platforms you can use the --platform flag.
# (i.e. docker build --platform linux/arm64). However, you must enable docker buildKit for it.
# More info: https://docs.docker.com/develop/develop-images/build_enhancements/
.PHONY: docker-build
docker-build: ## Build docker image with the manager.
	$(CONTAINER_TOOL) build -t ${IMG} .

.PHONY: docker-push
docker-push: ## Push docker image with the manager.
	$(CONTAINER_TOOL) push ${IMG}

.PHONY: build-installer
build-installer: manifests generate kustomize ## Generate a consolidated YAML with CRDs and deployment in dist/install.yaml.
	mkdir -p dist
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default > dist/install.yaml

##@ Documentation (English and Chinese)

.PHONY: verify-translations
verify-translations: ## Fail when a Chinese twin (*.zh-CN.md) is missing or older than its English source, showing what changed since.
	go run ./hack/translations

.PHONY: translation-stamp
translation-stamp: ## Record, in each translation of FILES, the version of its English source it now translates.
	go run ./hack/translations -stamp $(FILES)

.PHONY: verify-links
verify-links: ## Fail when a relative link in a Markdown file, or its #anchor, does not resolve.
	go run ./hack/mdlinks

##@ Helm chart

.PHONY: chart
chart: manifests ## Write the chart's CRD, RBAC rules and webhook configurations from config/ (hack/chart-sync).
	go run ./hack/chart-sync

.PHONY: verify-chart
verify-chart: chart ## Fail when charts/cronlab differs from what config/ says.
	@if [ -n "$$(git status --porcelain -- charts)" ]; then \
		echo "charts/cronlab is out of sync with config/. Run 'make chart' and commit the result:"; \
		git status --porcelain -- charts; exit 1; \
	fi

.PHONY: test-chart
test-chart: chart helm build-installer ## Lint the chart, dry-run it and dist/install.yaml on the current cluster, install and uninstall it.
	@HELM=$(HELM) KUBECTL=$(KUBECTL) hack/test-chart.sh

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

# The CRD embeds the whole Pod template schema; it is too large for the
# last-applied annotation of client-side apply, hence --server-side.
.PHONY: install
install: manifests kustomize ## Install CRDs into the K8s cluster specified in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -
	@# A new CRD is served a moment after it is stored; wait, so that the next command can use it.
	@# (kubectl wait fails instead of waiting while the CRD has no conditions yet, hence the loop.)
	@for i in $$(seq 1 60); do \
		$(KUBECTL) wait --for condition=established --timeout=30s crd/cronjobs.batch.cronlab.dev >/dev/null 2>&1 && \
			{ echo "CRD cronjobs.batch.cronlab.dev is established"; exit 0; }; sleep 1; \
	done; echo "The CRD cronjobs.batch.cronlab.dev was not established within a minute: kubectl describe crd cronjobs.batch.cronlab.dev"; exit 1

.PHONY: uninstall
uninstall: manifests kustomize ## Uninstall CRDs from the K8s cluster. Call with ignore-not-found=true to ignore resource not found errors.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy controller to the K8s cluster specified in ~/.kube/config.
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize ## Undeploy controller from the K8s cluster. Call with ignore-not-found=true to ignore resource not found errors.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Dependencies

## Location to install dependencies to
LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

## Tool Binaries
# Prefer the kubectl built with the local cluster's binaries (same version).
KUBECTL ?= $(or $(wildcard $(KUBE_BIN_CACHE)/kubectl),kubectl)
KWOKCTL ?= $(LOCALBIN)/kwokctl
KWOK ?= $(LOCALBIN)/kwok
HELM ?= $(LOCALBIN)/helm
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
ENVTEST ?= $(LOCALBIN)/setup-envtest

## Tool Versions
KUSTOMIZE_VERSION ?= v5.8.1
CONTROLLER_TOOLS_VERSION ?= v0.21.0
# setup-envtest is pinned to a tag: branch versions such as release-0.24 do not
# resolve through a Go module proxy.
ENVTEST_VERSION ?= v0.25.1
KWOK_VERSION ?= v0.8.0
HELM_VERSION ?= v3.22.0

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Download kustomize locally if necessary.
$(KUSTOMIZE): $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Download controller-gen locally if necessary.
$(CONTROLLER_GEN): $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

.PHONY: envtest
envtest: $(ENVTEST) ## Download setup-envtest locally if necessary.
$(ENVTEST): $(LOCALBIN)
	$(call go-install-tool,$(ENVTEST),sigs.k8s.io/controller-runtime/tools/setup-envtest,$(ENVTEST_VERSION))

.PHONY: helm
helm: $(HELM) ## Download helm locally if necessary.
$(HELM): $(LOCALBIN)
	$(call go-install-tool,$(HELM),helm.sh/helm/v3/cmd/helm,$(HELM_VERSION))

.PHONY: kind
kind: $(KIND_PINNED) ## Install the pinned kind into bin/ (running it needs Docker).
$(KIND_PINNED): $(LOCALBIN)
	$(call go-install-tool,$(KIND_PINNED),sigs.k8s.io/kind,$(KIND_VERSION))

.PHONY: kwok
kwok: $(KWOKCTL) $(KWOK) ## Download kwokctl and kwok locally if necessary.
$(KWOKCTL): $(LOCALBIN)
	$(call go-install-tool,$(KWOKCTL),sigs.k8s.io/kwok/cmd/kwokctl,$(KWOK_VERSION))
$(KWOK): $(LOCALBIN)
	$(call go-install-tool,$(KWOK),sigs.k8s.io/kwok/cmd/kwok,$(KWOK_VERSION))

.PHONY: setup-envtest
setup-envtest: envtest ## Get etcd, kube-apiserver and kubectl for envtest: download, or build from the Go module proxy.
	@hack/setup-envtest.sh "$(ENVTEST)" "$(ENVTEST_K8S_VERSION)" "$(KUBE_VERSION)" "$(ENVTEST_DIR)" "$(KUBE_BIN_CACHE)" > $(LOCALBIN)/envtest-assets-path.tmp
	@mv $(LOCALBIN)/envtest-assets-path.tmp $(LOCALBIN)/envtest-assets-path
	@echo "envtest binaries: $$(cat $(LOCALBIN)/envtest-assets-path)"

# go-install-tool will 'go install' any package with custom target and name of binary, if it doesn't exist
# $1 - target path with name of binary
# $2 - package url which can be installed
# $3 - specific version of package
define go-install-tool
@[ -f "$(1)-$(3)" ] && [ "$$(readlink -- "$(1)" 2>/dev/null)" = "$(notdir $(1))-$(3)" ] || { \
set -e; \
package=$(2)@$(3) ;\
echo "Downloading $${package}" ;\
rm -f "$(1)" ;\
GOBIN="$(LOCALBIN)" go install $${package} ;\
mv "$(LOCALBIN)/$$(basename "$(1)")" "$(1)-$(3)" ;\
} ;\
ln -sf "$(notdir $(1))-$(3)" "$(1)"
endef
