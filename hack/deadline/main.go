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

// deadline runs a command and stops it when it runs too long, as GNU
// timeout(1) does, which stock macOS does not have (docs/laptops.md).
// hack/setup-envtest.sh uses it so that a download that hangs on a blocked
// network gives way to the build from the Go module proxy.
//
//	go run ./hack/deadline SECONDS COMMAND [ARG...]
//
// The command's output and exit status are its own; past the deadline it is
// stopped and deadline exits with 124, as timeout does.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: deadline SECONDS COMMAND [ARG...]")
		os.Exit(2)
	}
	seconds, err := strconv.Atoi(os.Args[1])
	if err != nil || seconds <= 0 {
		fmt.Fprintf(os.Stderr, "deadline: %q is not a number of seconds\n", os.Args[1])
		os.Exit(2)
	}
	os.Exit(run(time.Duration(seconds)*time.Second, os.Args[2], os.Args[3:]...))
}

// run returns the command's exit status, or 124 when the deadline stopped it.
func run(d time.Duration, name string, args ...string) int {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(os.Stderr, "deadline: %s still ran after %s, stopped\n", name, d)
		return 124
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "deadline:", err)
		return 127
	}
	return 0
}
