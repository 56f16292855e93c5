// `txdesk/tracker`, kept for programs (and the benches) that import the SDK from the txdesk package: the SDK is its own
// package now, @txdesk/tracker (packages/tracker), which a program that only tracks or verifies webhooks installs alone.
export * from '@txdesk/tracker';
