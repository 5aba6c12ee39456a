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

package class

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"cronlab.dev/cronlab/cmd/lab/internal/i18n"
	"cronlab.dev/cronlab/cmd/lab/internal/labtest"
)

func status(t *testing.T, l i18n.Lang, dir string) string {
	t.Helper()
	return labtest.Printed(t, func() error { CmdStatus(l, dir); return nil })
}

func raise(t *testing.T, dir, text string) {
	t.Helper()
	labtest.Printed(t, func() error { return CmdHand(i18n.English, dir, "scheduling", []string{text}, false) })
}

// bin/lab status says of a hand what the board says of it: up, lowered by
// the instructor, or down because the attendee passed its stage; and,
// when the board cannot be asked, that it only knows what this clone did.
func TestStatusSaysWhatTheBoardSaysOfTheHand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "board.db")
	ab := startBoard(t, "127.0.0.1:0", db)
	dir := t.TempDir()
	if _, err := Join(dir, ab.url(), "CODE42", "ada"); err != nil {
		t.Fatal(err)
	}
	raise(t, dir, "my Job is created twice")
	if got := status(t, i18n.English, dir); !strings.Contains(got, `your hand is up on the board: "my Job is created twice"`) {
		t.Errorf("status with the hand up:\n%s", got)
	}

	m, _ := ReadMember(dir)
	resp, err := http.Post(fmt.Sprintf("%s/api/v1/attendees/%d/hands/%d/lower?key=%s", ab.url(), m.Attendee, m.HandSeq, ab.b.Key()), "application/json", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the instructor lowering the hand: %v %v", resp, err)
	}
	resp.Body.Close()
	if got := status(t, i18n.Chinese, dir); !strings.Contains(got, `你的举手 "my Job is created twice" 已被讲师在看板上放下`) {
		t.Errorf("status after the instructor lowered the hand:\n%s", got)
	}
	if got := status(t, i18n.English, dir); strings.Contains(got, "hand") {
		t.Errorf("status, once it told the hand was lowered, still speaks of it:\n%s", got)
	}

	raise(t, dir, "why does Forbid skip?")
	if _, err := Enqueue(dir, result("scheduling")); err != nil { // a check that passes stage scheduling
		t.Fatal(err)
	}
	if _, err := Flush(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if got := status(t, i18n.English, dir); !strings.Contains(got, `your hand "why does Forbid skip?" came down when you passed stage scheduling`) {
		t.Errorf("status after a check passed the hand's stage:\n%s", got)
	}

	addr := ab.addr
	ab.down()
	raise(t, dir, "the board is gone")
	if got := status(t, i18n.English, dir); !strings.Contains(got, `your hand is up, as far as this clone knows: "the board is gone" (the board could not be asked: the board at`) {
		t.Errorf("status with the board down:\n%s", got)
	}
	startBoard(t, addr, db)
	if got := status(t, i18n.English, dir); !strings.Contains(got, `your hand waits to be sent to the board: "the board is gone"`) {
		t.Errorf("status with the board back, the hand not sent yet:\n%s", got)
	}
}
