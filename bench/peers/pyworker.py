"""A Python library peer (pyautogui or mss) in a process of its own, driven one command per stdin line.

bench/peers/run starts one per library so each is timed in process (as a script using it would be) and
its peak memory is its own. Answers one line per command: `ok ms=… bytes=…` or `err MESSAGE`.

    shot               pyautogui.screenshot() + PNG encode (pyautogui), or mss grab + mss.tools.to_png (mss)
    click X Y [FILE]   pyautogui.click(X, Y), then a fresh screenshot + PNG encode, kept in FILE when given
                       (pyautogui only)
    type TEXT          pyautogui.write(TEXT) (pyautogui only)
    quit
"""

import io
import sys
import time


def main():
    lib = sys.argv[1]
    if lib == "pyautogui":
        import pyautogui  # noqa: PLC0415 (import cost belongs to this process only)

        pyautogui.FAILSAFE = False  # the pointer may rest in a corner of the private desktop

        def shot(keep=None):
            img = pyautogui.screenshot()
            buf = io.BytesIO()
            img.save(buf, format="PNG")
            if keep:
                with open(keep, "wb") as f:
                    f.write(buf.getvalue())
            return len(buf.getvalue())

        def click(x, y, keep=None):
            pyautogui.click(x, y)  # followed by pyautogui.PAUSE (0.1 s by default)
            return shot(keep)

        def type_text(text):
            pyautogui.write(text)
            return 0

    elif lib == "mss":
        import mss  # noqa: PLC0415
        import mss.tools  # noqa: PLC0415

        grabber = mss.MSS() if hasattr(mss, "MSS") else mss.mss()

        def shot():
            img = grabber.grab(grabber.monitors[1])
            return len(mss.tools.to_png(img.rgb, img.size))

        click = type_text = None
    else:
        sys.exit(f"unknown library {lib}")

    print("ready", flush=True)
    for line in sys.stdin:
        line = line.rstrip("\n")
        cmd, _, rest = line.partition(" ")
        try:
            start = time.perf_counter()
            if cmd == "shot":
                n = shot()
            elif cmd == "click" and click:
                x, y, *keep = rest.split(" ", 2)
                n = click(int(x), int(y), *keep)
            elif cmd == "type" and type_text:
                n = type_text(rest)
            elif cmd == "quit":
                break
            else:
                raise ValueError(f"unsupported command {cmd!r} for {lib}")
            ms = (time.perf_counter() - start) * 1000
            print(f"ok ms={ms:.3f} bytes={n}", flush=True)
        except Exception as e:  # report and keep serving
            print("err " + f"{type(e).__name__}: {e}".replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
