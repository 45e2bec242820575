package main

// What the signer process tests read of a cluster: its members' status,
// metrics and logs, the payouts' recipients, and the signing requests an
// operator sends.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signingsource"
	"github.com/bridgelog/bridgelog/topics"
)

// waitUntil polls cond until it holds, failing the test after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// signingEvent is the event the group owes for the cluster's i-th burn
// (the token's burn ids count from domain.FirstBurnID), without its
// source.
func (c *signerCluster) signingEvent(i int) twophase.SigningEvent {
	o := c.kaspa.owed[i]
	return twophase.SigningEvent{Stream: domain.BurnStream(devchain.ChainID, domain.Address(c.users.Bridge.Token)),
		Nonce: domain.FirstBurnID + uint64(i), Destination: o.address.String(), Amount: o.sompi}
}

func (c *signerCluster) eventID(i int) twophase.Hash { return c.signingEvent(i).ID() }

func (c *signerCluster) eventIDs(burns []int) []twophase.Hash {
	out := make([]twophase.Hash, len(burns))
	for k, i := range burns {
		out[k] = c.eventID(i)
	}
	return out
}

// requested is the events a member's log says it was asked to pay.
func (c *signerCluster) requested(id string) map[twophase.Hash]bool {
	out := map[twophase.Hash]bool{}
	for _, f := range c.rawFacts(id, twophase.TypeEventRequested) {
		out[f.(*twophase.EventRequested).ID] = true
	}
	return out
}

// received is what the i-th burn's recipient holds on the node, at any
// depth.
func (c *signerCluster) received(i int) []uint64 {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := kaspanode.Open(ctx, c.node.RPC, 10*time.Second)
	if err != nil {
		c.t.Fatal(err)
	}
	defer s.Close()
	utxos, err := s.UTXOs(ctx, c.kaspa.owed[i].address.String())
	if err != nil {
		c.t.Fatal(err)
	}
	var out []uint64
	for _, u := range utxos {
		out = append(out, u.Amount)
	}
	return out
}

// httpStatus is a running member's GET /status.
func (c *signerCluster) httpStatus(id string) (signerStatusDoc, error) {
	return fetchSignerStatus(context.Background(), c.member(id).http)
}

// cliStatus is `bridgelog signer status --config FILE --json` of a member.
func (c *signerCluster) cliStatus(id string) signerStatusDoc {
	c.t.Helper()
	stdout, _ := runCommand(c.t, c.bin, 0, "signer", "status", "--config", c.member(id).config, "--json")
	var doc signerStatusDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		c.t.Fatalf("signer status --json: %v\n%s", err, stdout)
	}
	return doc
}

// everyStream says whether every member answers GET /status with stream
// as want has it.
func (c *signerCluster) everyStream(stream string, want func(statusStream) bool) bool {
	for _, m := range c.group.members {
		doc, err := c.httpStatus(m.id)
		if err != nil || !want(streamIn(doc, stream)) {
			return false
		}
	}
	return true
}

// streamIn is the stream's entry in a status (zero when there is none).
func streamIn(doc signerStatusDoc, stream string) statusStream {
	for _, s := range doc.Streams {
		if s.Stream == stream {
			return s
		}
	}
	return statusStream{}
}

func allInPhase(doc signerStatusDoc, ids []twophase.Hash, phase string) bool {
	for _, id := range ids {
		found := false
		for _, e := range doc.Events {
			found = found || (e.ID == id.Hex() && e.Phase == phase)
		}
		if !found {
			return false
		}
	}
	return true
}

func peerConnected(doc signerStatusDoc, id string) bool {
	for _, p := range doc.Peers {
		if p.ID == id {
			return p.Connected != nil && *p.Connected
		}
	}
	return false
}

func nodeUp(doc signerStatusDoc, name string) bool {
	for _, n := range doc.Nodes {
		if n.Name == name {
			return n.Up
		}
	}
	return false
}

func countSigned(signed map[twophase.Hash][]twophase.Hash) int {
	n := 0
	for _, hashes := range signed {
		n += len(hashes)
	}
	return n
}

// gauge reads an unlabelled series from a member's /metrics (-1 when the
// member does not answer or has no such series).
func (c *signerCluster) gauge(id, name string) float64 {
	resp, err := http.Get("http://" + c.member(id).http + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		value, ok := strings.CutPrefix(sc.Text(), name+" ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			c.t.Fatalf("%s: %q", name, sc.Text())
		}
		return v
	}
	return -1
}

// nodeHealth is the kaspa_node step's failures and recoveries on a
// member's log, in order.
func (c *signerCluster) nodeHealth(id string) (failed []domain.RelayStepFailed, recovered []domain.RelayStepRecovered) {
	c.t.Helper()
	return c.stepHealth(id, stepKaspaNode)
}

// stepHealth is a step's failures and recoveries on a member's log, in
// order.
func (c *signerCluster) stepHealth(id, step string) (failed []domain.RelayStepFailed, recovered []domain.RelayStepRecovered) {
	c.t.Helper()
	for _, env := range c.records(id, topics.TopicChain, domain.TypeRelayStepFailed) {
		var f domain.RelayStepFailed
		if err := topics.DecodePayload(env.Payload, &f); err != nil {
			c.t.Fatal(err)
		}
		if f.Step == step {
			failed = append(failed, f)
		}
	}
	for _, env := range c.records(id, topics.TopicChain, domain.TypeRelayStepRecovered) {
		var r domain.RelayStepRecovered
		if err := topics.DecodePayload(env.Payload, &r); err != nil {
			c.t.Fatal(err)
		}
		if r.Step == step {
			recovered = append(recovered, r)
		}
	}
	return failed, recovered
}

// refusedOnLog says whether a member recorded a refused signing request
// whose reason holds reason.
func (c *signerCluster) refusedOnLog(id, reason string) bool {
	c.t.Helper()
	for _, env := range c.records(id, topics.TopicChain, domain.TypeSigningRequestRefused) {
		var r domain.SigningRequestRefused
		if err := topics.DecodePayload(env.Payload, &r); err != nil {
			c.t.Fatal(err)
		}
		if strings.Contains(r.Reason, reason) {
			return true
		}
	}
	return false
}

// credential is the group's admin credential.
func (c *signerCluster) credential() string {
	c.t.Helper()
	b, err := os.ReadFile(c.group.credential)
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// signingRequest is ev as an operator submits it, its source read from
// the chain itself (not through any signer's view of it).
func (c *signerCluster) signingRequest(ev twophase.SigningEvent) signingsource.SigningEventRequest {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	logs, err := c.users.Backend.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{c.users.Bridge.Token},
		Topics: [][]common.Hash{{withdrawalToKaspaTopic}, {burnIDTopic(ev.Nonce)}}})
	if err != nil || len(logs) != 1 {
		c.t.Fatalf("burn %d's log: %d logs, %v", ev.Nonce, len(logs), err)
	}
	req := signingsource.SigningEventRequest{Stream: ev.Stream, Nonce: ev.Nonce, Destination: ev.Destination, Amount: ev.Amount}
	req.Source.Chain = domain.EVMChain(devchain.ChainID)
	req.Source.TxHash = logs[0].TxHash.Hex()
	req.Source.LogIndex = uint32(logs[0].Index)
	req.Source.Block = logs[0].BlockNumber
	return req
}

// submit POSTs req to a member's /signing-events, with the credential
// when it is not empty.
func (c *signerCluster) submit(id string, req signingsource.SigningEventRequest, credential string) (int, submitAnswer) {
	c.t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.member(id).http+"/signing-events", bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if credential != "" {
		hr.Header.Set("Authorization", "Bearer "+credential)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans submitAnswer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		c.t.Fatalf("POST /signing-events answered %s: %v", resp.Status, err)
	}
	return resp.StatusCode, ans
}
