package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
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
		if err := requireData(); err != nil {
			return err
		}
		if _, err := os.Stat(logDir()); errors.Is(err, os.ErrNotExist) {
			return noLogError(logDir(), err) // rather than back up a log made empty here
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

// backupPlan is when and where a relay backs its log up.
type backupPlan struct {
	dir   string
	every time.Duration
	keep  int // newest backups kept in dir; 0: all
}

// backupNameLayout names a backup directory by its UTC time, so names
// sort as times do.
const backupNameLayout = "20060102T150405.000Z"

// backupMetrics receives the periodic backups' metrics (adapters/metrics).
type backupMetrics interface {
	LogBackupFailed()
	LogBackupWritten(at time.Time)
}

type nopBackupMetrics struct{}

func (nopBackupMetrics) LogBackupFailed()           {}
func (nopBackupMetrics) LogBackupWritten(time.Time) {}

// backupLoop backs lg up into a new directory of plan.dir every interval
// until ctx ends, then prunes the oldest beyond plan.keep. A failure is
// logged and counted (m may be nil), and the next interval tries again.
func backupLoop(ctx context.Context, lg logBackuper, plan backupPlan, m backupMetrics) {
	if m == nil {
		m = nopBackupMetrics{}
	}
	t := time.NewTicker(plan.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			to := filepath.Join(plan.dir, now.UTC().Format(backupNameLayout))
			if _, err := lg.Backup(ctx, to); err != nil {
				if ctx.Err() != nil {
					return
				}
				m.LogBackupFailed()
				slog.Error("log backup failed", "dir", to, "err", err)
				continue
			}
			m.LogBackupWritten(now)
			if err := pruneBackups(plan.dir, plan.keep); err != nil {
				slog.Warn("log backups: pruning old ones failed", "dir", plan.dir, "err", err)
			}
		}
	}
}

// pruneBackups removes the oldest backups in dir beyond the newest keep
// (0: keeps all), and what interrupted backups left (*.partial; none is
// being written: the loop backs up one at a time). Other entries stay.
func pruneBackups(dir string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var done []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		base, partial := strings.CutSuffix(name, ".partial")
		if _, err := time.Parse(backupNameLayout, base); err != nil || !e.IsDir() {
			continue
		}
		if partial {
			errs = append(errs, os.RemoveAll(filepath.Join(dir, name)))
			continue
		}
		done = append(done, name)
	}
	sort.Strings(done) // oldest first
	for keep > 0 && len(done) > keep {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, done[0])))
		slog.Info("log backups: removed the oldest", "dir", filepath.Join(dir, done[0]), "keep", keep)
		done = done[1:]
	}
	return errors.Join(errs...)
}

// on checks the relay's backup flags and says whether backups are asked
// for; the relay checks them before anything slow.
func (p backupPlan) on() (bool, error) {
	switch {
	case p.keep < 0:
		return false, fmt.Errorf("--backup-keep %d: must be >= 0", p.keep)
	case p.every == 0 && p.dir == "":
		return false, nil
	case p.every <= 0 || p.dir == "":
		return false, fmt.Errorf("--backup-every %v --backup-dir %q: backups need both, a positive interval and a directory", p.every, p.dir)
	}
	return true, nil
}

// relayBackups returns the log to back up under plan (nil: no backups).
func relayBackups(lg topics.Log, plan backupPlan) (logBackuper, error) {
	if on, err := plan.on(); err != nil || !on {
		return nil, err
	}
	b, ok := lg.(logBackuper)
	if !ok {
		return nil, fmt.Errorf("--backup-every: only the embedded log is backed up (--log %s keeps its own replicas)", engineFlags.log)
	}
	return b, nil
}

var logRestoreCmd = &cobra.Command{
	Use:   "restore BACKUP",
	Short: "Put a backup of the embedded log in place and rebuild the store from it",
	Long: `restore puts the log backed up in BACKUP (by log backup or relay
--backup-every) at DATA/log, then rebuilds the SQLite store from it as an
offline replay does (with PostgreSQL, run bridgelog replay next).

What DATA/log held is moved aside to DATA/log.before-restore-<UTC time> and
kept: it may hold records the backup lacks. BACKUP is read whole and checked
frame by frame before anything moves, and its records stay as they are (a
copy that is not a cut, with a torn tail, has that tail cut). restore refuses
while another bridgelog process has the log or the store open: stop the relay
first. On Linux the old and the restored log are exchanged in one step;
elsewhere, if restore is interrupted after moving the old log aside,
DATA/log.restoring is the whole restored log.

Then start the relay: it scans the chains again from the backup's cursors and
finds there what was paid after the backup. Sink analytics into a new
ClickHouse database: the old one holds records the restored log lacks.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		if engineFlags.log != "embedded" {
			return fmt.Errorf("restore puts back the embedded log; --log %s keeps its own replicas", engineFlags.log)
		}
		ctx, out := cmd.Context(), cmd.OutOrStdout()
		dir := logDir()
		aside, st, err := embeddedlog.Restore(ctx, args[0], dir, time.Now().UTC().Format(backupNameLayout),
			embeddedlog.WithLogger(slog.Default()))
		if errors.Is(err, embeddedlog.ErrLocked) {
			return fmt.Errorf("%w: stop the relay and other bridgelog commands on %s first", err, engineFlags.data)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "restored %d records from %s into %s\n", st.Records, args[0], dir)
		if aside != "" {
			fmt.Fprintf(out, "the log that was there is kept in %s\n", aside)
		}
		if engineFlags.store != "sqlite" {
			fmt.Fprintln(out, "now run bridgelog replay: the store is ahead of the restored log")
			return nil
		}
		b, err := buildOffline(ctx, nil, cmd.ErrOrStderr(), "restore", false)
		if err != nil {
			return fmt.Errorf("%w (the log is restored: run bridgelog replay)", err)
		}
		if err := b.print(ctx, out); err != nil {
			return err
		}
		fmt.Fprintln(out, "start the relay: it finds on the chains what was done after the backup; sink analytics into a new ClickHouse database")
		return nil
	},
}

func init() {
	logCmd.AddCommand(logBackupCmd, logRestoreCmd)
}
