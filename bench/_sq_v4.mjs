import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const { openDatabase } = await import('../dist/lib/sqlite.js');
const { createTrackerStore } = await import('../dist/service/tracker/_v4.js');
const { formatReceipt, payloadJson } = await import('../dist/service/tracker/tracker-receipt-format.js');
const db = openDatabase(join(mkdtempSync(join(tmpdir(),'sq-')), 't.db'));
const store = createTrackerStore(db);
store.subscribe('c1','sub',600000,Date.now());
const N=1000, R=8;
const hex = (n,l=64)=>'0x'+n.toString(16).padStart(l,'0');
let now = Date.now();
const times = {commit:[], ack:[], conf:[]};
for (let r=0;r<R;r++){
  const states=[]; for(let i=0;i<N;i++){ states.push(store.track('c1', hex(r*N+i), 1, 3600000, now).state); }
  const receipts = states.map((s,i)=>formatReceipt({transactionHash:s.txHash, blockHash:hex(r+1), blockNumber:'0x'+(r+1).toString(16), transactionIndex:'0x'+i.toString(16), from:hex(7,40), to:hex(8,40), contractAddress:null, gasUsed:'0x5208', cumulativeGasUsed:'0x'+(21000*(i+1)).toString(16), effectiveGasPrice:'0x3b9aca00', status:'0x1', type:'0x2', logs:[]}));
  const mined = states.map((s,i)=>({...s, receipt: receipts[i]}));
  let t0=performance.now(); const acks=[];
  for(let c=0;c<N;c+=100){ const part=mined.slice(c,c+100); const {created}=store.commitRound(part,[],part.map(s=>({clientId:'c1',txHash:s.txHash,type:'receipt',payload:payloadJson({type:'receipt',result:s.receipt})})), now); for(const e of created[0].entries) acks.push({clientId:'c1',ackId:e.ackId}); }
  times.commit.push(performance.now()-t0);
  t0=performance.now(); for(let c=0;c<N;c+=100) store.ackMany(acks.slice(c,c+100)); times.ack.push(performance.now()-t0);
  const done = mined.map(s=>({...s, doneAtMs: now}));
  t0=performance.now(); store.commitRound(done,[],done.map(s=>({clientId:'c1',txHash:s.txHash,type:'confirmation',payload:payloadJson({type:'confirmation',result:s.receipt})})), now); times.conf.push(performance.now()-t0);
}
const med = a=>a.slice().sort((x,y)=>x-y)[a.length>>1].toFixed(1);
console.log(`per 1000: receipts commit (10 tx of 100) ${med(times.commit)} ms, acks (10x100) ${med(times.ack)} ms, confirmations commit (1 tx) ${med(times.conf)} ms`);
