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

package i18n

import (
	"errors"
	"fmt"
)

// An Error is an error in both languages, made where the language is not
// known (reading stage.yaml, choosing the language itself) and printed where
// it is (Message). Error() is the English, for logs and `lab check --json`.
type Error struct{ en, zh error }

// Errorf makes an error in both languages, each formatted as fmt.Errorf
// formats it (%w wraps). An argument that is itself an Error, or wraps one
// without adding words, is put into the Chinese in Chinese.
func Errorf(en, zh string, args ...any) error {
	zhArgs := make([]any, len(args))
	for i, a := range args {
		zhArgs[i] = a
		if err, ok := a.(error); ok {
			if e := transparent(err); e != nil {
				zhArgs[i] = e.zh
			}
		}
	}
	return &Error{en: fmt.Errorf(en, args...), zh: fmt.Errorf(zh, zhArgs...)}
}

// transparent is the Error that err is, or wraps without adding words
// (base.SetupError), or nil.
func transparent(err error) *Error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if b, ok := e.(*Error); ok {
			return b
		}
		if inner := errors.Unwrap(e); inner == nil || inner.Error() != e.Error() {
			return nil
		}
	}
	return nil
}

func (e *Error) Error() string { return e.en.Error() }

// Unwrap is what the English wraps: both wrap the same error.
func (e *Error) Unwrap() error { return errors.Unwrap(e.en) }

// Message is err in l: an Error in l's language, any other as it says.
func Message(l Lang, err error) string {
	if e := transparent(err); e != nil && l == Chinese {
		return e.zh.Error()
	}
	return err.Error()
}

// Both is an error whose two texts were made elsewhere: a class board's
// refusal, which comes in both languages.
func Both(en, zh string) error { return &Error{en: errors.New(en), zh: errors.New(zh)} }
