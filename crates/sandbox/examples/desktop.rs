//! Start a private desktop by hand.
//!
//! `cargo run -p handrail-sandbox --example desktop` starts one, prints its environment and waits for
//! Ctrl-C; `cargo run -p handrail-sandbox --example desktop -- xterm` runs xterm inside one and stops
//! the desktop when xterm exits.

use handrail_sandbox::{run_inside, Sandbox, SandboxOptions};

fn main() {
    handrail_sandbox::log_to_stderr();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.split_first() {
        Some((program, rest)) => match run_inside(SandboxOptions::default(), program, rest) {
            Ok(status) => {
                eprintln!("{program} exited: {status}");
                status.code().unwrap_or(1)
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        },
        None => match Sandbox::start(SandboxOptions::default()) {
            Ok(sb) => {
                for (k, v) in sb.env() {
                    println!("export {k}='{v}'");
                }
                eprintln!("pids {:?}; Ctrl-C to stop", sb.pids());
                match sb.run_until_signal() {
                    Ok((why, report)) => {
                        eprintln!("stopped ({why:?}) in {:?}: {report:?}", report.duration);
                        0
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        1
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        },
    };
    std::process::exit(code);
}
