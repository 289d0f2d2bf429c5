"""Label Studio itself: the embedded server, the API client, each annotator's server and
the onboarding of annotators onto them."""
