package kaspanode_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// TestInputStatusUnspentThenGone: an output of the address is unspent
// while the UTXO index holds it; once another transaction spends it, it
// is gone since the virtual DAA score of the first miss, and that score
// stays while the virtual score grows past it (what a signer's proof that
// a signed payout can never confirm is measured from).
func TestInputStatusUnspentThenGone(t *testing.T) {
	payer, payee := kaspadtest.NewKey(t), kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	in := n.WaitMature(t, payer.Address, 1)[0]
	c := newClient(t, n, payer.Address, &recorder{})
	ctx := context.Background()
	st, err := c.InputStatus(ctx, in.Outpoint)
	if err != nil || !st.Unspent || st.GoneSince != 0 || st.VirtualDAAScore == 0 {
		t.Fatalf("mature output: %+v, %v; want unspent at a virtual score", st, err)
	}
	tx := payer.Spend(t, []twophase.UTXO{in}, kaspadtest.Payment{To: payee.Address, Amount: in.Amount - fee})
	if err := c.Submit(ctx, kaspadtest.Serialize(t, tx)); err != nil {
		t.Fatal(err)
	}
	waitAccepted(t, c, kaspadtest.TxID(tx))
	var gone twophase.InputStatus
	eventually(t, time.Minute, func() error {
		st, err := c.InputStatus(ctx, in.Outpoint)
		if err != nil {
			return err
		}
		if st.Unspent || st.GoneSince == 0 || !st.SpentBy.IsZero() {
			return fmt.Errorf("spent output: %+v; want gone since a score", st)
		}
		gone = st
		return nil
	})
	eventually(t, time.Minute, func() error {
		st, err := c.InputStatus(ctx, in.Outpoint)
		if err != nil {
			return err
		}
		if st.GoneSince != gone.GoneSince {
			return fmt.Errorf("gone since %d, then %d: the first miss must stay", gone.GoneSince, st.GoneSince)
		}
		if st.VirtualDAAScore <= gone.GoneSince {
			return errors.New("virtual DAA score has not passed the first miss yet")
		}
		return nil
	})
}
