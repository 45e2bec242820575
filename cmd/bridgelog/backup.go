package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/topics"
)

// logBackuper is a log that copies itself consistently (the embedded one).
type logBackuper interface {
	Backup(ctx context.Context, dir string) (embeddedlog.BackupStats, error)
}

var logBackupCmd = &cobra.Command{
	Use:   "backup DIR",
	Short: "Copy the embedded log, consistently, into a new directory",
	Long: `backup copies the embedded log (DATA/log) into DIR, which must not exist, as
it is at one instant: every batch of appends whole, in every partition and
topic. A plain copy (cp, rsync) of a log that is being appended is not
consistent. DIR appears only when the copy is complete and synced. To restore,
stop bridgelog, put DIR at DATA/log and run bridgelog replay.

backup opens the log itself, so it runs while no other bridgelog process has
it open. A running relay backs its log up with --backup-every and
--backup-dir. Kafka keeps its own replicas: there is nothing to back up here.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		if engineFlags.log != "embedded" {
			return fmt.Errorf("backup copies the embedded log; --log %s keeps its own replicas", engineFlags.log)
		}
		lg, err := openLog(cmd.Context())
		if errors.Is(err, embeddedlog.ErrLocked) {
			return fmt.Errorf("%w (a relay backs its log up with --backup-every and --backup-dir)", err)
		}
		if err != nil {
			return err
		}
		defer lg.Close()
		st, err := lg.(logBackuper).Backup(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "backed up %d records (%d segments, %d bytes) into %s\n", st.Records, st.Segments, st.Bytes, args[0])
		return nil
	},
}

// backupLoop backs lg up into a new directory of dir, named by the UTC
// time, every interval until ctx ends. A failure is logged and counted
// (m may be nil), and the next interval tries again.
func backupLoop(ctx context.Context, lg logBackuper, dir string, every time.Duration, m handlers.Metrics) {
	if m == nil {
		m = handlers.NopMetrics{}
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			to := filepath.Join(dir, now.UTC().Format("20060102T150405.000Z"))
			if _, err := lg.Backup(ctx, to); err != nil {
				if ctx.Err() != nil {
					return
				}
				m.Count("log_backup_failures_total", nil, 1)
				slog.Error("log backup failed", "dir", to, "err", err)
				continue
			}
			m.Count("log_backups_total", nil, 1)
		}
	}
}

// relayBackups checks the relay's backup flags and returns the log to
// back up (nil: no backups).
func relayBackups(lg topics.Log, dir string, every time.Duration) (logBackuper, error) {
	switch {
	case every == 0 && dir == "":
		return nil, nil
	case every <= 0 || dir == "":
		return nil, fmt.Errorf("--backup-every %v --backup-dir %q: backups need both, a positive interval and a directory", every, dir)
	}
	b, ok := lg.(logBackuper)
	if !ok {
		return nil, fmt.Errorf("--backup-every: only the embedded log is backed up (--log %s keeps its own replicas)", engineFlags.log)
	}
	return b, nil
}

func init() {
	logCmd.AddCommand(logBackupCmd)
}
