"""The application: command line, session loop, storage, web app."""
