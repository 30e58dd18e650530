//! Drives a running wlroots compositor by hand: `wayland_probe SOCKET [SWAYSOCK] [TEXT]` prints the
//! outputs and windows, saves a screenshot to `wayland-probe.png`, and types TEXT when given.

use std::path::PathBuf;

use handrail_platform::absent::{NoAccessibility, NoOcr};

use handrail_wayland::{LaunchEnv, Socket, WaylandDesktop, WaylandOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let socket = Socket(PathBuf::from(args.next().ok_or("give the compositor's socket path")?));
    let ipc = args.next().map(PathBuf::from);
    let text = args.next();
    let launch = LaunchEnv::new(Vec::new(), std::env::temp_dir().join("wayland-probe-browser"));
    let desktop =
        WaylandDesktop::connect(WaylandOptions::new(socket, ipc, launch), Box::new(NoAccessibility), Box::new(NoOcr))?;
    println!("screen {:?}", desktop.screen.screen_size()?);
    println!("monitors {:?}", desktop.screen.monitors()?);
    for w in desktop.windows.stack()? {
        println!(
            "window {} {:?} {:?} active={} minimized={}",
            w.handle, w.info.title, w.info.bounds, w.active, w.minimized
        );
    }
    let t = std::time::Instant::now();
    let frame = desktop.screen.capture(None, None)?;
    println!("captured {:?} in {:?}", frame.size, t.elapsed());
    let png = handrail_imaging::encoder(handrail_imaging::ImageFormat::Png).encode(&frame)?;
    std::fs::write("wayland-probe.png", png.bytes)?;
    if let Some(text) = text {
        match text.strip_prefix("key:") {
            Some(keys) => {
                let (mods, key) = keys.rsplit_once('+').unwrap_or(("", keys));
                let modifiers = handrail_platform::Modifiers {
                    ctrl: mods.contains("ctrl"),
                    alt: mods.contains("alt"),
                    shift: mods.contains("shift"),
                    super_key: mods.contains("super"),
                };
                let key = handrail_platform::Key::from_name(key).ok_or_else(|| format!("no key named {key:?}"))?;
                desktop.input.key(&handrail_platform::KeyCombo { modifiers, key })?;
            }
            None => desktop.input.type_text(&text)?,
        }
    }
    Ok(())
}
