import { join } from 'node:path';
import { readFileSync } from 'node:fs';
const root = '/work/main/';
const { Transaction, Wallet } = await import('ethers');
const { startAnvil } = await import(join(root, 'dist/devchain/index.js'));
const { deriveDevAccounts } = await import(join(root, 'dist/devchain/dev-accounts.js'));
const anvil = await startAnvil({ gasLimit: 1000 * 21000, accounts: 10, blockTimeSeconds: 1 });
const post = async (body) => { const r = await fetch(anvil.url, {method:'POST', headers:{'content-type':'application/json'}, body: JSON.stringify(body)}); return r.json(); };
const rpc = async (method, params) => { const b = await post({jsonrpc:'2.0',id:1,method,params}); if (b.error) throw new Error(method+': '+b.error.message); return b.result; };
const batch = (calls) => post(calls.map((c,i)=>({jsonrpc:'2.0',id:i,method:c[0],params:c[1]})));
const cpuMs = () => { const f = readFileSync(`/proc/${anvil.pid}/stat`,'utf8').split(') ')[1].split(' '); return (Number(f[11])+Number(f[12]))*10; };
await rpc('evm_setIntervalMining',[0]); await rpc('evm_setAutomine',[false]);
const keys = deriveDevAccounts(10).map(a=>a.privateKey); const signers = keys.map(k=>new Wallet(k).signingKey);
const nonces = new Array(10).fill(0);
const txs=[]; for (let i=0;i<8000;i++){const s=i%10; const tx=Transaction.from({to:'0x000000000000000000000000000000000000dEaD',value:1n,nonce:nonces[s]++,gasLimit:21000n,maxFeePerGas:200_000_000_000n,maxPriorityFeePerGas:1_000_000_000n,chainId:31337n,type:2}); tx.signature=signers[s].sign(tx.unsignedHash); txs.push(tx);}
for (let i=0;i<txs.length;i+=500) await batch(txs.slice(i,i+500).map(t=>['eth_sendRawTransaction',[t.serialized]]));
async function lookups(hs){ const chunks=[]; for(let j=0;j<hs.length;j+=100) chunks.push(hs.slice(j,j+100)); let nx=0; const t0=performance.now(); await Promise.all(Array.from({length:4},async()=>{while(nx<chunks.length) await batch(chunks[nx++].map(h=>['eth_getTransactionReceipt',[h]]));})); return performance.now()-t0; }
for (let b=0;b<8;b++){
  await new Promise(r=>setTimeout(r,300));
  const c0=cpuMs(); let t0=performance.now(); await rpc('evm_mine',[]); const tm=performance.now()-t0; const c1=cpuMs();
  const blk = await rpc('eth_getBlockByNumber',['latest',false]);
  const t = await lookups(blk.transactions); const c2=cpuMs();
  await new Promise(r=>setTimeout(r,300)); const c3=cpuMs();
  console.log(`pool ${8000-(b+1)*1000}: mine ${tm.toFixed(1)} ms (cpu ${c1-c0}), receipts right after: ${t.toFixed(1)} ms (cpu ${c2-c1}); idle 300ms after: cpu ${c3-c2}`);
}
await anvil.stop();
