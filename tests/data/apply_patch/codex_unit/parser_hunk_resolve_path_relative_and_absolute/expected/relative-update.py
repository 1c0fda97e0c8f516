R
