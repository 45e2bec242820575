#!/usr/bin/env bash
# Regenerates everything derived from src/*.sol: build/*.abi|*.bin (solc-js 0.8.37, OpenZeppelin
# 5.7.0, evmVersion cancun, optimizer 200 runs; see compile.js) and the abigen v2 Go bindings.
# Needs node + npm (the npm registry) and Go; the first abigen run compiles it (~3.5 min).
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -d node_modules/solc ] || [ ! -d node_modules/@openzeppelin/contracts ]; then
	npm ci --no-audit --no-fund
fi
rm -rf build
node compile.js

ABIGEN="go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10"
for c in BatchDistributor BridgeToken; do
	out="$(echo "$c" | sed -E 's/([a-z0-9])([A-Z])/\1_\2/g' | tr 'A-Z' 'a-z')_bind.go"
	$ABIGEN --v2 --abi "build/$c.abi" --bin "build/$c.bin" --pkg contracts --type "$c" --out "$out"
done
gofmt -l . | (! grep .) || { echo "generated code is not gofmt-clean" >&2; exit 1; }
echo "generate.sh: build/ and *_bind.go regenerated"
