package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
)

// refundOutcome is what devnet found of its refused burns: how many the
// group refused for their denied destination, how many the chain shows
// minted back once, and every way they differ from that.
type refundOutcome struct {
	want, refused, refunded int
	problems                []string
}

func (r refundOutcome) ok() bool {
	return r.refused == r.want && r.refunded == r.want && len(r.problems) == 0
}

// refundOutcome judges the refused burns from the members' records
// (refusedByGroup), the chain (a: each refund guard's Refunded log) and
// the relay's refunds projection.
func (k *devnetKaspa) refundOutcome(ctx context.Context, a devchain.Audit, recs []payoutRecord) refundOutcome {
	out := refundOutcome{want: len(k.refused)}
	denied := map[string]bool{}
	for _, r := range k.refused {
		denied[r.address.String()] = true
	}
	out.refused, out.problems = refusedByGroup(recs, denied)
	for _, b := range a.KaspaBurns {
		n := len(a.RefundsOf(b))
		switch {
		case denied[b.KaspaRecipient] && n == 1:
			out.refunded++
		case denied[b.KaspaRecipient]:
			out.problems = append(out.problems, fmt.Sprintf("the refused burn toward %s in tx %s is refunded %d times on chain, want once",
				b.KaspaRecipient, b.Tx, n))
		case n > 0:
			out.problems = append(out.problems, fmt.Sprintf("the burn toward %s in tx %s, which the group pays, is refunded %d times",
				b.KaspaRecipient, b.Tx, n))
		}
	}
	n, err := k.refundsSettled(ctx)
	switch {
	case err != nil:
		out.problems = append(out.problems, fmt.Sprintf("the relay's refunds: %v", err))
	case n[projections.RefundCompleted] != int64(out.want) || n[projections.RefundFailed] != 0 ||
		n[projections.RefundRequested] != 0 || n[projections.RefundRefused] != 0:
		out.problems = append(out.problems, fmt.Sprintf("the relay's refunds: %d completed, %d failed, %d pending, %d certificates refused; want %d completed",
			n[projections.RefundCompleted], n[projections.RefundFailed], n[projections.RefundRequested], n[projections.RefundRefused], out.want))
	}
	return out
}

// refusedByGroup counts the denied destinations a quorum of members
// recorded Refused for being denied: a quorum refuses and certifies, so
// one member may not have recorded a verdict yet when the rest are done.
// Any other refusal, by any member, is a problem (said once).
func refusedByGroup(recs []payoutRecord, denied map[string]bool) (refused int, problems []string) {
	members := map[string]int{} // by denied destination
	said := map[string]bool{}
	problem := func(p string) {
		if !said[p] {
			said[p] = true
			problems = append(problems, p)
		}
	}
	for _, rec := range recs {
		for _, e := range rec.refused {
			switch {
			case !denied[e.destination]:
				problem(fmt.Sprintf("the group refused the payout to %s (%s)", e.destination, e.reason))
			case e.reason != twophase.RefusedDeniedDestination:
				problem(fmt.Sprintf("the group refused the burn toward %s for %s, want %s", e.destination, e.reason,
					twophase.RefusedDeniedDestination))
			default:
				members[e.destination]++
			}
		}
	}
	for d := range denied {
		if members[d] >= devnetQuorum {
			refused++
		}
	}
	return refused, problems
}

// refundsSettled counts the relay's refunds by status (none before the
// relay is set).
func (k *devnetKaspa) refundsSettled(ctx context.Context) (map[string]int64, error) {
	if k.relay == nil {
		return map[string]int64{}, nil
	}
	return k.relay.RefundCounts(ctx)
}

// signersUp reports whether the signers serve their endpoints.
func (k *devnetKaspa) signersUp() bool { return k.up.Load() }

// waitSignersServe waits until every signer answers GET /refusals: the
// relay asks them from then on.
func (k *devnetKaspa) waitSignersServe(ctx context.Context) error {
	client := &http.Client{Timeout: 2 * time.Second}
	for _, m := range k.group.members {
		url := "http://" + m.http + "/refusals"
		for !answers(ctx, client, url) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("devnet: signer %s does not answer %s (its output: %s): %w", m.id, url,
					filepath.Join(m.dir, "signer.out"), ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// answers reports whether GET url answers 200.
func answers(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
