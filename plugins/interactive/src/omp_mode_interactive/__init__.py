"""The interactive terminal mode: prompt-toolkit for input, rich for the transcript."""
