"""Where the guide is published: every link the tools print starts here."""

SITE_URL = "https://tf-retracing-guide.github.io/tf-retracing-guide/"
