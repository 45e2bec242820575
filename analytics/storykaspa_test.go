package analytics_test

import (
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// TestKaspaDepositStory: a Kaspa deposit's story, asked by its
// transaction id as Kaspa writes it (no 0x) or by its aggregate, tells
// its sighting, its reorganisation, its sighting in another block and its
// confirmation there, each in its section.
func TestKaspaDepositStory(t *testing.T) {
	ctx := ctxT(t)
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	op := domain.KaspaOutpoint{TxID: domain.Hash32{0x4b, 0x1d}, Index: 2}
	b1, b2 := domain.Hash32{0xb1}, domain.Hash32{0xb2}
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	if _, err := app.Append(ctx, handlers.Cause{},
		domain.KaspaDepositDetected{Outpoint: op, Amount: 5e8, Recipient: domain.Address{0xa1}, Block: b1, DAAScore: 100},
		domain.KaspaDepositReorged{Outpoint: op, Block: b1},
		domain.KaspaDepositDetected{Outpoint: op, Amount: 5e8, Recipient: domain.Address{0xa1}, Block: b2, DAAScore: 104},
		domain.KaspaDepositConfirmed{Outpoint: op, Block: b2, VirtualDAAScore: 404, Depth: 300},
	); err != nil {
		t.Fatal(err)
	}
	st := projectLog(t, lg)
	f := analytics.NewLocalFinder(projections.BridgeReader{Store: st}, lg, nil)
	for _, key := range []string{op.Key()[:64], domain.KaspaDepositID(op)} {
		story, err := analytics.BuildStory(ctx, f, key)
		if err != nil {
			t.Fatal(err)
		}
		if story.Empty() {
			t.Fatalf("%s: no story", key)
		}
		var told []string
		for _, s := range story.Subjects[0].Steps {
			told = append(told, s.Section+": "+s.Explain)
		}
		got := strings.Join(told, "\n")
		for _, want := range []string{"chain: a deposit of 500000000 sompi for 0xa1", "chain: chain block " + b1.Hex() + " left the virtual chain",
			"confirmation: the deposit's block was 300 DAA score deep"} {
			if !strings.Contains(got, want) {
				t.Fatalf("%s: story\n%s\nwant %q", key, got, want)
			}
		}
		if len(told) != 4 {
			t.Fatalf("%s: %d steps, want 4:\n%s", key, len(told), got)
		}
	}
}
