//! handrail's library API on `$DISPLAY`, one command per stdin line, one answer per stdout line.
//!
//! Used by `bench/peers/run` so the library is timed on the same desktop, in the same rounds, as the
//! peers it is compared with. Times are taken in process (like a program embedding the library).
//!
//! ```text
//! capture jpeg|png|raw     SHM capture (fitted into 1280x800) + encode     → ok ms=… bytes=…
//! click X Y [FILE]         XTEST click + DAMAGE settle + capture + JPEG     → ok ms=… settle=… bytes=…
//!                          (the JPEG is written to FILE afterwards when given, outside the timing)
//! type TEXT                type TEXT (default strategy) into the focus      → ok ms=…
//! quit
//! ```
//! Errors answer `err MESSAGE`.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Instant;

use handrail_imaging::{JpegEncoder, PngEncoder};
use handrail_platform::{Encoder, Input, MouseButton, Point, Screen, Settle, SettleRequest, Size};
use handrail_x11::capture::X11Screen;
use handrail_x11::input::X11Input;
use handrail_x11::settle::X11Settle;
use handrail_x11::Conn;

fn main() {
    let display = std::env::var("DISPLAY").unwrap_or_else(|_| {
        eprintln!("DISPLAY is not set");
        std::process::exit(2)
    });
    let conn = Conn::open(&display).expect("connect to the display");
    let screen = X11Screen::new(Arc::clone(&conn)).expect("capture");
    let input = X11Input::new(Arc::clone(&conn)).expect("input");
    let settle = X11Settle::new(&display).expect("DAMAGE");
    let jpeg = JpegEncoder::default();
    let png = PngEncoder::default();
    let max = Some(Size::new(1280, 800));
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready").ok();
    out.flush().ok();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let (cmd, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let answer: Result<String, String> = match cmd {
            "capture" => {
                let start = Instant::now();
                let frame = screen.capture(None, max).map_err(|e| e.to_string());
                frame.and_then(|frame| {
                    let bytes = match rest {
                        "jpeg" => jpeg.encode(&frame).map(|i| i.bytes.len()).map_err(|e| e.to_string())?,
                        "png" => png.encode(&frame).map(|i| i.bytes.len()).map_err(|e| e.to_string())?,
                        _ => frame.pixels.len(),
                    };
                    Ok(format!("ms={:.3} bytes={bytes}", ms(start)))
                })
            }
            "click" => {
                let mut parts = rest.splitn(3, ' ');
                let n: Vec<i32> = parts.by_ref().take(2).filter_map(|v| v.parse().ok()).collect();
                let keep = parts.next();
                match n[..] {
                    [x, y] => (|| {
                        let start = Instant::now();
                        let mut watch = settle.watch().map_err(|e| e.to_string())?;
                        input.click(Point::new(x, y), MouseButton::Left, 1).map_err(|e| e.to_string())?;
                        let report = watch.wait(&SettleRequest::default()).map_err(|e| e.to_string())?;
                        let frame = screen.capture(None, max).map_err(|e| e.to_string())?;
                        let image = jpeg.encode(&frame).map_err(|e| e.to_string())?;
                        let took = ms(start);
                        if let Some(path) = keep {
                            std::fs::write(path, &image.bytes).map_err(|e| e.to_string())?;
                        }
                        Ok(format!(
                            "ms={took:.3} settle={:.3} bytes={}",
                            report.waited.as_secs_f64() * 1000.0,
                            image.bytes.len()
                        ))
                    })(),
                    _ => Err("click needs X Y".into()),
                }
            }
            "type" => {
                let start = Instant::now();
                input.type_text(rest).map(|()| format!("ms={:.3}", ms(start))).map_err(|e| e.to_string())
            }
            "quit" => break,
            other => Err(format!("unknown command {other:?}")),
        };
        match answer {
            Ok(a) => writeln!(out, "ok {a}"),
            Err(e) => writeln!(out, "err {}", e.replace('\n', " ")),
        }
        .ok();
        out.flush().ok();
    }
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
