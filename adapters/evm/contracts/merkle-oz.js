// Reference merkle tree for domain/merkle's cross-check: reads {"leaves": ["0x…", …]} on stdin
// and prints what @openzeppelin/merkle-tree's SimpleMerkleTree.of(leaves) (default options)
// gives: {"root", "proofs": [proof by input index], "proofsByLeaf": [getProof(leaf hash)]}.
// With --bench it prints {"root", "buildMs", "proofsMs"} instead, timing only the library.
'use strict';
const { SimpleMerkleTree } = require('@openzeppelin/merkle-tree');

const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const { leaves } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (process.argv.includes('--bench')) {
    const t0 = process.hrtime.bigint();
    const tree = SimpleMerkleTree.of(leaves);
    const t1 = process.hrtime.bigint();
    let n = 0;
    for (let i = 0; i < leaves.length; i++) n += tree.getProof(i).length;
    const t2 = process.hrtime.bigint();
    process.stdout.write(JSON.stringify({
      root: tree.root,
      siblings: n,
      buildMs: Number(t1 - t0) / 1e6,
      proofsMs: Number(t2 - t1) / 1e6,
    }));
    return;
  }
  const tree = SimpleMerkleTree.of(leaves);
  process.stdout.write(JSON.stringify({
    root: tree.root,
    proofs: leaves.map((_, i) => tree.getProof(i)),
    proofsByLeaf: leaves.map((l) => tree.getProof(l)),
  }));
});
