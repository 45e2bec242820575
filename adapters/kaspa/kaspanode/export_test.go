package kaspanode

import (
	"context"

	"github.com/kaspanet/kaspad/app/appmessage"
)

// The connection's internals for conn_test.go, an external test: it
// starts its node with kaspadtest, which imports this package.

// Dial is dial.
var Dial = dial

// RoundTrip is roundTrip.
func (c *conn) RoundTrip(ctx context.Context, req appmessage.Message, answer appmessage.MessageCommand) (appmessage.Message, error) {
	return c.roundTrip(ctx, req, answer)
}

// Broken is closed once the connection is unusable.
func (c *conn) Broken() <-chan struct{} { return c.broken }

// Fail breaks the connection.
func (c *conn) Fail(reason error) { c.fail(reason) }

// AskInfo asks GetInfo on the connection.
func (c *conn) AskInfo(ctx context.Context) error {
	_, err := ask[*appmessage.GetInfoResponseMessage](ctx, c, appmessage.NewGetInfoRequestMessage())
	return err
}
