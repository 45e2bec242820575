package simnet

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Actions run in time order, ties in the order they were queued, and
// Run stops at its bound.
func TestSchedulerOrder(t *testing.T) {
	s := NewScheduler(t0)
	var got []int
	s.After(2*time.Second, func() { got = append(got, 3) })
	s.After(time.Second, func() { got = append(got, 1) })
	s.After(time.Second, func() {
		got = append(got, 2)
		s.After(0, func() { got = append(got, 25) }) // queued now: after what is already due now
	})
	s.After(5*time.Second, func() { got = append(got, 5) })
	s.Run(t0.Add(3*time.Second), nil)
	want := []int{1, 2, 25, 3}
	if len(got) != len(want) {
		t.Fatalf("ran %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ran %v, want %v", got, want)
		}
	}
	if !s.Now().Equal(t0.Add(3*time.Second)) || s.Pending() != 1 { // Now moved to the bound
		t.Fatalf("now %v, %d pending", s.Now(), s.Pending())
	}
}

// The bus delays, loses, duplicates and cuts deliveries as configured,
// counts what it did, and loses what reaches a member that is down.
func TestBusFaults(t *testing.T) {
	members := []twophase.PeerID{"a", "b", "c", "d"}
	s := NewScheduler(t0)
	b := NewBus(s, Faults{Delay: 10 * time.Millisecond, Loss: 0.25, Duplicate: 0.25,
		Partitions: []Partition{{Groups: []int{1, 3}, From: time.Second, For: time.Second}}}, rand.New(rand.NewPCG(3, 4)), members)
	got := map[twophase.PeerID]int{}
	var at []time.Duration
	for _, m := range members {
		m := m
		b.Attach(m, func(context.Context, []byte, *Opened) { got[m]++; at = append(at, s.Now().Sub(t0)) })
	}
	for i := 0; i < 400; i++ {
		_ = b.Endpoint("b").Send(context.Background(), "c", []byte("x"))
	}
	s.Run(t0.Add(500*time.Millisecond), nil)
	st := b.Stats()
	if st.Sent != 400 || st.Lost < 60 || st.Lost > 140 || st.Duplicated < 40 || st.Duplicated > 110 {
		t.Fatalf("stats %+v: want about a quarter lost and a quarter of the rest duplicated", st)
	}
	if uint64(got["c"]) != st.Sent-st.Lost+st.Duplicated || got["a"]+got["b"]+got["d"] != 0 {
		t.Fatalf("received %v with stats %+v", got, st)
	}
	for _, d := range at {
		if d != 10*time.Millisecond {
			t.Fatalf("a delivery after %v, want the 10ms delay", d)
		}
	}
	// In the partition a is cut from the others; b and c still talk.
	s.Run(t0.Add(1500*time.Millisecond), nil)
	s.After(0, func() {
		_ = b.Endpoint("a").Send(context.Background(), "", []byte("cut"))
		_ = b.Endpoint("b").Send(context.Background(), "c", []byte("ok"))
	})
	before := b.Stats().Partitioned
	s.Run(t0.Add(1600*time.Millisecond), nil)
	if b.Stats().Partitioned-before != 3 {
		t.Fatalf("%d deliveries cut, want a's 3", b.Stats().Partitioned-before)
	}
	b.SetDown("c", true)
	n := got["c"]
	for i := 0; i < 20; i++ {
		_ = b.Endpoint("b").Send(context.Background(), "c", []byte("down"))
	}
	s.Run(t0.Add(3*time.Second), nil)
	if got["c"] != n || b.Stats().ToDown == 0 {
		t.Fatal("a member that is down received a message")
	}
}
