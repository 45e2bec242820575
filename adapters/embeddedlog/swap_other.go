//go:build !linux

package embeddedlog

import "errors"

// swapDirs is not one step here: Restore falls back to two renames.
func swapDirs(string, string) error { return errors.ErrUnsupported }
