package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

var refundFlags struct {
	config      string
	certificate string
}

var refundCmd = &cobra.Command{
	Use:   "refund --config relay.json --certificate FILE",
	Short: "Hand the relay a signing group's refusal certificate: the refused burn is minted back to its burner, once",
	Long: `refund reads a refusal certificate (JSON, as the signers' GET /refusals gives each) and
verifies it against the group of the relay config's signers section (its group id, its members'
identity keys, its quorum) and the config's token. A good one is appended to the relay's log as
refund.requested (keyed by the burn: a copy changes nothing) and the relay mints the burned amount
back to the burner once; a bad one as refund.certificate_refused with the reason, and the command
exits 1. When a running relay holds the embedded log, the certificate is left in its inbox
(DATA/refunds/inbox) and the relay takes it, verified the same way, at its next poll.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runRefund(cmd.Context(), refundFlags.config, refundFlags.certificate, cmd.OutOrStdout())
	},
}

func init() {
	refundCmd.Flags().StringVar(&refundFlags.config, "config", "", "the relay config (its signers section names the group)")
	refundCmd.Flags().StringVar(&refundFlags.certificate, "certificate", "", "the refusal certificate, a JSON file")
	_ = refundCmd.MarkFlagRequired("config")
	_ = refundCmd.MarkFlagRequired("certificate")
	rootCmd.AddCommand(refundCmd)
}

func runRefund(ctx context.Context, configPath, certPath string, stdout io.Writer) error {
	cfg, err := loadRelayConfig(configPath)
	if err != nil {
		return err
	}
	intake, err := refundIntakeOf(ctx, cfg)
	if err != nil {
		return err
	}
	cert, err := handlers.ReadCertificateFile(certPath)
	if err != nil {
		return err
	}
	burn := cert.Burn.WithdrawalToKaspaID()
	lg, err := openLog(ctx)
	if errors.Is(err, embeddedlog.ErrLocked) {
		// A running relay holds the log: it takes the certificate from
		// its inbox and verifies it itself.
		path, werr := leaveInInbox(cert)
		if werr != nil {
			return werr
		}
		fmt.Fprintf(stdout, "a running relay holds the log (%v): certificate for %s left in %s for it\n", err, burn, path)
		return checkedLocally(intake, cert)
	}
	if err != nil {
		return err
	}
	defer lg.Close()
	if known, err := verdictOnStore(ctx, intake, cert); err != nil {
		return err
	} else if known {
		fmt.Fprintf(stdout, "the log has this certificate's verdict already (burn %s): nothing appended\n", burn)
		return checkedLocally(intake, cert)
	}
	intake.Appender = &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	if err := intake.Accept(ctx, cert, "file:"+filepath.Base(certPath)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "refund of %s requested: %s to %s; the relay mints it back once\n", burn, cert.Amount, cert.Burner.Hex())
	return nil
}

// verdictOnStore reports whether the relay's store has cert's verdict:
// another copy of a requested burn's certificate is then not appended (it
// would be a conflicting duplicate). No store yet: not known.
func verdictOnStore(ctx context.Context, in *handlers.RefundIntake, cert domain.RefusalCertificate) (bool, error) {
	st, err := openStoreReader(ctx)
	var nd *noDataError
	if errors.As(err, &nd) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer st.Close()
	key := domain.RefundVerdictKey(cert, checkedLocally(in, cert) != nil)
	return projections.BridgeReader{Store: st}.RefundKnown(ctx, key)
}

// checkedLocally is the verdict the relay will reach, for the exit code.
func checkedLocally(in *handlers.RefundIntake, c domain.RefusalCertificate) error {
	err := domain.VerifyRefusal(c, in.Group.ID, in.Group.Keys, in.Group.Quorum)
	if err == nil {
		err = domain.CheckRefundable(c, in.Token)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", handlers.ErrCertificateRefused, err)
	}
	return nil
}

// leaveInInbox writes c into the relay's inbox, whole or not at all.
func leaveInInbox(c domain.RefusalCertificate) (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return writeWhole(refundInbox(engineFlags.data), domain.CertificateDigest(c)+".json", b)
}

// writeWhole writes b as dir/name, creating dir (mode 700): through a
// temporary file renamed into place, so a reader of dir sees the file
// whole or not at all.
func writeWhole(dir, name string, b []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, ".incoming-*")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}
