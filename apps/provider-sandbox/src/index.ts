// Placeholder: the provider sandbox is built in apps/provider-sandbox (issue 3).
export {};
