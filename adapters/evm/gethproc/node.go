// Package gethproc runs a real go-ethereum node, `geth --dev`, as a child
// process: a one-node proof-of-stake chain that seals a block every
// second, with a funded developer account in a keystore, serving JSON-RPC
// over HTTP and WebSocket on loopback ports. It builds geth from the
// go-ethereum version deploy/geth pins (once per machine, cached). Tests
// use it to deploy the bridge and run the relay against a real node, not
// only go-ethereum's simulated backend.
package gethproc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/domain"
)

// ChainID is geth --dev's chain id.
const ChainID = 1337

// ErrNode: a node that would not start.
var ErrNode = errors.New("geth node")

// Grace between SIGINT and SIGKILL: geth closes its database.
const stopGrace = 20 * time.Second

// startTimeout bounds how long StartDev waits for the RPC to answer.
const startTimeout = 60 * time.Second

// Dev is a running geth --dev node.
type Dev struct {
	// HTTP and WS are the JSON-RPC endpoints (eth, net, web3).
	HTTP, WS string
	// Account is the developer account, funded at genesis; its key is in
	// Keystore (an ordinary scrypt keystore directory, light scrypt
	// parameters), encrypted with the passphrase in PassphraseFile.
	Account        domain.Address
	Keystore       string
	PassphraseFile string
	// Output is the file holding geth's log.
	Output string

	proc *childproc.Process
}

// StartDev starts geth --dev with its data in dir (dir/data; the keystore
// dir/data/keystore, the passphrase dir/passphrase) on free loopback
// ports, sealing a block every second, and waits until its HTTP RPC
// answers. On failure the error holds the end of geth's log, and nothing
// is left running.
func (b Binary) StartDev(ctx context.Context, dir string) (*Dev, error) {
	if !b.present() {
		return nil, fmt.Errorf("%w: no geth at %s (use Build)", ErrNode, b)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	pass, err := writePassphrase(filepath.Join(dir, "passphrase"))
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	args := []string{"--dev", "--dev.period", "1", "--datadir", data, "--password", pass,
		// Light scrypt: the developer key is a well-known one, and each
		// unlock of a standard keystore file costs a second and 256 MB.
		"--lightkdf",
		"--http", "--http.addr", "127.0.0.1", "--http.port", ports[0], "--http.api", "eth,net,web3",
		"--ws", "--ws.addr", "127.0.0.1", "--ws.port", ports[1], "--ws.api", "eth,net,web3",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", ports[2],
		"--ipcdisable", "--nodiscover", "--maxpeers", "0", "--verbosity", "3"}
	out := filepath.Join(dir, "geth.out")
	p, err := childproc.Start(string(b), args, out, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	d := &Dev{HTTP: "http://127.0.0.1:" + ports[0], WS: "ws://127.0.0.1:" + ports[1],
		Keystore: filepath.Join(data, "keystore"), PassphraseFile: pass, Output: out, proc: p}
	if err := d.waitRPC(ctx); err != nil {
		_ = d.Stop()
		return nil, fmt.Errorf("%w: geth --dev on %s did not come up: %w\n%s", ErrNode, d.HTTP, err, childproc.Tail(out, 40))
	}
	ks := keystore.NewKeyStore(d.Keystore, keystore.LightScryptN, keystore.LightScryptP)
	accts := ks.Accounts()
	if len(accts) != 1 {
		_ = d.Stop()
		return nil, fmt.Errorf("%w: geth --dev left %d accounts in %s, want its developer account alone", ErrNode, len(accts), d.Keystore)
	}
	d.Account = domain.Address(accts[0].Address)
	return d, nil
}

// writePassphrase writes a random passphrase for the developer account,
// readable by its owner only.
func writePassphrase(path string) (string, error) {
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNode, err)
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(buf)+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNode, err)
	}
	return path, nil
}

// waitRPC waits until the node answers eth_chainId with geth --dev's id
// and has sealed a block past genesis.
func (d *Dev) waitRPC(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var last error
	for {
		if d.proc.Exited() {
			return fmt.Errorf("geth exited: %v", d.proc.Err())
		}
		last = d.answers(ctx)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no RPC answer (%v): %w", last, ctx.Err())
		case <-d.proc.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (d *Dev) answers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, d.HTTP)
	if err != nil {
		return err
	}
	defer cl.Close()
	id, err := cl.ChainID(ctx)
	if err != nil {
		return err
	}
	if id.Uint64() != ChainID {
		return fmt.Errorf("chain id %d, want %d", id, ChainID)
	}
	head, err := cl.BlockNumber(ctx)
	if err != nil {
		return err
	}
	if head == 0 {
		return errors.New("no block sealed yet")
	}
	return nil
}

// Stop interrupts geth and kills it when it has not exited within 20 s,
// and reaps it; safe to call twice.
func (d *Dev) Stop() error {
	if d.proc == nil {
		return nil
	}
	err := d.proc.Stop(stopGrace)
	d.proc = nil
	return err
}

// OutputTail is the end of geth's log, for a failure message.
func (d *Dev) OutputTail(lines int) string { return childproc.Tail(d.Output, lines) }

// freePorts finds count distinct free loopback ports.
func freePorts(count int) ([]string, error) {
	ports, err := childproc.FreeLoopbackPorts(count)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	out := make([]string, len(ports))
	for i, p := range ports {
		out[i] = strconv.Itoa(p)
	}
	return out, nil
}
