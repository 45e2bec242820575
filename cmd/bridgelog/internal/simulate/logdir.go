package simulate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/topics"
)

// keepLogs writes each honest signer's log, as the run left it, to an
// embedded log in dir/<signer>/log: the layout of a signer's data
// directory, so `bridgelog analytics sink --data dir/<signer>` sinks it.
// The Byzantine signers' logs are not kept: the report's figures are the
// honest signers'.
func (w *world) keepLogs(dir string) error {
	for _, n := range w.honestNodes() {
		if err := copyLog(n.log, filepath.Join(dir, string(n.id), "log")); err != nil {
			return fmt.Errorf("simulate: keep the log of %s: %w", n.id, err)
		}
	}
	return nil
}

// copyLog appends every record of src to a new embedded log at dir, with
// its key, so each lands in the same partition, in the same order.
func copyLog(src *memlog.Log, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	dst, err := embeddedlog.Open(dir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, spec := range topics.Topics() {
		ends, err := src.EndOffsets(ctx, spec.Name)
		if err != nil {
			dst.Close()
			return err
		}
		for p, end := range ends {
			for from := int64(0); from < end; {
				recs, err := src.Read(ctx, spec.Name, int32(p), from, 1000)
				if err != nil {
					dst.Close()
					return err
				}
				msgs := make([]topics.Message, len(recs))
				for i, r := range recs {
					msgs[i] = topics.Message{Key: r.Key, Value: r.Value}
				}
				if _, err := dst.Append(ctx, spec.Name, msgs...); err != nil {
					dst.Close()
					return err
				}
				from += int64(len(recs))
			}
		}
	}
	return dst.Close()
}
