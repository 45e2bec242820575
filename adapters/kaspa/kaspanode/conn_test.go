package kaspanode

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/app/appmessage"

	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
)

// An answer abandoned by its caller would be read by the next request of
// the same command: abandoning a call must break the connection.
func TestAbandonedRoundTripBreaksTheConnection(t *testing.T) {
	n := kaspadtest.StartNode(t, kaspadtest.Options{})
	cn, err := dial(context.Background(), n.RPC)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.fail(errors.New("test over"))
	if _, err := ask[*appmessage.GetInfoResponseMessage](context.Background(), cn, appmessage.NewGetInfoRequestMessage()); err != nil {
		t.Fatalf("GetInfo: %v", err)
	}

	// Wait for an answer that never comes (GetInfo answers on its own route).
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = cn.roundTrip(ctx, appmessage.NewGetInfoRequestMessage(), appmessage.CmdGetBlockDAGInfoResponseMessage)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("abandoned call: %v, want ErrUnavailable wrapping the deadline", err)
	}
	select {
	case <-cn.broken:
	default:
		t.Fatal("the connection is still in use after an abandoned call")
	}
	if _, err := ask[*appmessage.GetInfoResponseMessage](context.Background(), cn, appmessage.NewGetInfoRequestMessage()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("call on the broken connection: %v, want ErrUnavailable", err)
	}
}
