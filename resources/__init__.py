"""Icons, style sheets and screenshots, installed as the package ``ikgui.resources``."""
