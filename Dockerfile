# Build the manager binary. (No Docker engine runs on the lab's CI machines;
# this file is kept correct by reading and by the workshop's kind path.)
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
# Copy the Go module manifests and download dependencies first, so that
# changing the source does not download them again.
COPY go.mod go.mod
COPY go.sum go.sum
RUN go mod download

COPY cmd/ cmd/
COPY api/ api/
COPY internal/ internal/

# GOARCH has no default, so the binary is built for the platform of the
# builder unless TARGETARCH is given (docker buildx sets it per platform).
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -a -o manager ./cmd

# distroless/static runs a static binary with no shell and as a non-root user.
# The time zone database is compiled into the manager (time/tzdata), so the
# image needs no /usr/share/zoneinfo.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
