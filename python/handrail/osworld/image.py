"""What OSWorld's Ubuntu image holds in the user's home before any task, and a fresh handrail home
does not: the provider writes it after every start and reset (`HandrailProvider.seed_home`).

OSWorld's tasks were written on that image and its evaluators read it: LibreOffice's user profile
exists (an Impress task's evaluator parses `registrymodifications.xcu` before anyone touched
LibreOffice, and fails on a missing file instead of scoring 0), its first start is done and its "Tip
of the Day" and "what's new" bar are off (published tasks' set-up steps press keys blind, assuming
no such dialog). VLC has run and its privacy question is answered: `~/.config/vlc/vlcrc` exists (the
VLC tasks' getter fails on a missing file instead of scoring 0, and their set-up steps assume no
question in front of the player).
"""

from __future__ import annotations

LIBREOFFICE_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="ooSetupInstCompleted" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>99.9</value></prop></item>
</oor:items>
"""

# The options VLC's answer to its first-start question writes; VLC reads every other option at its
# default and writes the whole file (every option, defaults commented out) when its preferences are
# saved.
VLC_CONFIG = """\ufeff###
###  vlc 3.0.24
###

[qt] # Qt interface

# Ask for network policy at start (boolean)
qt-privacy-ask=0

[core] # core program

# Allow metadata network access (boolean)
metadata-network-access=0
"""

# Paths under the home (`/home/user` to tasks) and their content.
HOME_FILES: dict[str, str] = {
    ".config/libreoffice/4/user/registrymodifications.xcu": LIBREOFFICE_PROFILE,
    ".config/vlc/vlcrc": VLC_CONFIG,
}
