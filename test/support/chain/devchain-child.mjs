// Test fixture: a parent process that starts the dev chain from a JS build (argv[2] = its devchain.js), prints one JSON line, then idles until killed.
const { startDevchain } = await import(process.argv[2]);
const devchain = await startDevchain({
  congestion: process.argv[3] ?? 'high',
  progress: false,
  log: {
    info() {},
    warn() {},
    error() {},
    child() {
      return this;
    },
  },
});
process.stdout.write(`${JSON.stringify({ ...devchain.readyInfo(), anvilPid: devchain.anvilPid, pid: process.pid })}\n`);
setInterval(() => {}, 60_000);
