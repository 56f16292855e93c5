// Preload: placeholder until the typed bridge lands (issue 7).
export {};
