//go:build unix

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

package board

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A board in another process holds its file; the refusal names that
// process. Killed with SIGKILL (a crash, a closed lid's battery), it
// leaves no lock behind: the board starts again at once.
func TestABoardOfAnotherProcessHoldsItsFileUntilItDies(t *testing.T) {
	db := filepath.Join(t.TempDir(), "board.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BOARD_HOLDS="+db, "BOARD_LOCKS="+lockDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "holding\n" {
		t.Fatalf("the other board said %q (%v)", line, err)
	}

	holderPID = cmd.Process.Pid
	refused(t, "a board of another process", db)
	holderPID = os.Getpid()

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := openBoard(t, db); err != nil {
		t.Errorf("after the other board was killed, the file is still refused: %v", err)
	}
}
