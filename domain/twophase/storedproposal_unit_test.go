package twophase

import (
	"errors"
	"testing"
)

func TestStoredProposal(t *testing.T) {
	g, keys := testGroup(3, 2)
	tpl := Template{Inputs: []TemplateInput{{Outpoint: op("a", 0), Amount: 5000, Script: groupScript}},
		Outputs: []TemplateOutput{{Amount: 3000, Script: payTo("alice")}, {Amount: 1800, Script: groupScript}}}
	p := Proposal{Event: testEvent(3000), Round: 2, TemplateHash: tpl.Hash(), Template: tpl.Encode(),
		Inputs: []InputMeta{{DAAScore: 11}}, Proposer: "s2"}
	seal := func(kind Kind, payload []byte) []byte {
		return Seal(keys["s2"], &Envelope{Version: ProtocolVersion, Group: g.ID(), Sender: "s2", Kind: kind, Payload: payload})
	}
	got, err := StoredProposal(seal(KindProposal, p.Encode()), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeTemplate(got.Template, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if fee, _ := back.Fee(); fee != 200 || got.Round != 2 || got.Proposer != "s2" || back.Hash() != p.TemplateHash {
		t.Fatalf("stored proposal: %+v, fee %d", got, fee)
	}
	var ve *ValidationError
	if _, err := StoredProposal(seal(KindCommit, Commit{}.Encode()), DefaultParams()); !errors.As(err, &ve) || ve.Reason != ReasonMalformed {
		t.Fatalf("a commit read as a proposal: %v", err)
	}
	if _, err := StoredProposal([]byte("junk"), DefaultParams()); err == nil {
		t.Fatal("junk read as a proposal")
	}
}
