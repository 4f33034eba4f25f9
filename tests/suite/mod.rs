//! One module per subject.

// The stories of `fixtures/`, run through the binary and compared with their expected outputs
// and with the clients' own captures.
mod captures;
mod golden;
mod readme;
mod upstream;

// The command line and the input forms it reads.
mod cli;
mod compressed;
mod dialect;
mod scan;
mod state_db;

// Replay and its invariants, for each agent.
mod claude_model;
mod fork;
mod invariants;
mod lineage;

// Writing a resumable copy.
mod repair;

// Bad input: never a panic, a hang, a changed file or unbounded memory.
mod hostile;
mod hostile_round_two;

// The module layering of `src/`.
mod layers;
