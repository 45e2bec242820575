package contracts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts/contractstest"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
)

// TestVerifyCodeAgainstTheArtifacts: the code of both deployed contracts
// is what their creation code (with the same constructor arguments)
// creates; the token's creation does not match the distributor's code,
// and an address without code matches nothing.
func TestVerifyCodeAgainstTheArtifacts(t *testing.T) {
	c := contractstest.New(t, contractstest.Config{})
	ctx := context.Background()
	admin, relayer := c.Admin.Address, c.Relayer.Address
	dist := contracts.DistributorCreation(admin, relayer, devchain.DevRateLimit)
	token := contracts.TokenCreation("Bridged Ether", "bETH", admin, relayer, contracts.KaspaBurnRules{Prefix: "kaspa"}, devchain.DevRateLimit)
	for _, ok := range []struct {
		addr common.Address
		cr   contracts.Creation
	}{{c.DistributorAddr, dist}, {c.TokenAddr, token}} {
		if err := contracts.VerifyCode(ctx, c.Client, admin, ok.addr, ok.cr); err != nil {
			t.Errorf("%s at %s: %v", ok.cr.Name, ok.addr, err)
		}
	}
	for _, bad := range []struct {
		addr common.Address
		cr   contracts.Creation
	}{{c.DistributorAddr, token}, {c.Users[0].Address, dist}} {
		if err := contracts.VerifyCode(ctx, c.Client, admin, bad.addr, bad.cr); !errors.Is(err, contracts.ErrBytecode) {
			t.Errorf("%s at %s: %v, want ErrBytecode", bad.cr.Name, bad.addr, err)
		}
	}
}

// TestCheckFundsRefusesAPoorDeployer: a funded deployer may deploy both
// contracts; an account without ether is refused before anything is sent.
func TestCheckFundsRefusesAPoorDeployer(t *testing.T) {
	c := contractstest.New(t, contractstest.Config{})
	ctx := context.Background()
	both := []contracts.Creation{contracts.DistributorCreation(c.Admin.Address, c.Relayer.Address, devchain.DevRateLimit),
		contracts.TokenCreation("Bridged Ether", "bETH", c.Admin.Address, c.Relayer.Address, contracts.KaspaBurnRules{Prefix: "kaspa"}, devchain.DevRateLimit)}
	if err := contracts.CheckFunds(ctx, c.Client, c.Admin.Address, both...); err != nil {
		t.Fatal(err)
	}
	poor := contractstest.NewAccount("poor").Address
	if err := contracts.CheckFunds(ctx, c.Client, poor, both...); !errors.Is(err, contracts.ErrDeployerFunds) {
		t.Fatalf("a deployer without ether: %v, want ErrDeployerFunds", err)
	}
}

// TestWaitConfirmed: a creation is returned once it is depth blocks deep;
// a creation that reverts is ErrDeployFailed.
func TestWaitConfirmed(t *testing.T) {
	c := contractstest.New(t, contractstest.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	auth := c.Opts(ctx, c.Admin)
	_, tx, err := contracts.Send(auth, c.Client, contracts.DistributorCreation(c.Admin.Address, c.Relayer.Address, devchain.DevRateLimit))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c.Sim.Commit()
	}
	r, err := contracts.WaitConfirmed(ctx, c.Client, tx.Hash(), contracts.Confirmation{Depth: 2, Poll: 10 * time.Millisecond})
	if err != nil || r.TxHash != tx.Hash() || r.ContractAddress == (common.Address{}) {
		t.Fatalf("receipt %+v, %v", r, err)
	}

	// PUSH1 0 PUSH1 0 REVERT, sent with a gas limit so nothing estimates it.
	auth = c.Opts(ctx, c.Admin)
	auth.GasLimit = 100_000
	_, tx, err = contracts.Send(auth, c.Client, contracts.Creation{Name: "reverting", Code: common.FromHex("0x60006000fd")})
	if err != nil {
		t.Fatal(err)
	}
	c.Sim.Commit()
	if _, err := contracts.WaitConfirmed(ctx, c.Client, tx.Hash(), contracts.Confirmation{Depth: 1, Poll: 10 * time.Millisecond}); !errors.Is(err, contracts.ErrDeployFailed) {
		t.Fatalf("a reverted creation: %v, want ErrDeployFailed", err)
	}
}
