package kaspanode_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/app/appmessage"

	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
)

// An answer abandoned by its caller would be read by the next request of
// the same command: abandoning a call must break the connection.
func TestAbandonedRoundTripBreaksTheConnection(t *testing.T) {
	n := kaspadtest.StartNode(t, kaspadtest.Options{})
	cn, err := kaspanode.Dial(context.Background(), n.RPC)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Fail(errors.New("test over"))
	if err := cn.AskInfo(context.Background()); err != nil {
		t.Fatalf("GetInfo: %v", err)
	}

	// Wait for an answer that never comes (GetInfo answers on its own route).
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = cn.RoundTrip(ctx, appmessage.NewGetInfoRequestMessage(), appmessage.CmdGetBlockDAGInfoResponseMessage)
	if !errors.Is(err, kaspanode.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("abandoned call: %v, want ErrUnavailable wrapping the deadline", err)
	}
	select {
	case <-cn.Broken():
	default:
		t.Fatal("the connection is still in use after an abandoned call")
	}
	if err := cn.AskInfo(context.Background()); !errors.Is(err, kaspanode.ErrUnavailable) {
		t.Fatalf("call on the broken connection: %v, want ErrUnavailable", err)
	}
}
